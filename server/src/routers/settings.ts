import { systemConfigUpdate } from '@hub/contract';
import { requires, router } from '../trpc/init';

export const settingsRouter = router({
  get: requires('config:read').query(({ ctx }) => ctx.services.settings.dump()),
  export: requires('config:read').query(({ ctx }) => ctx.services.settings.exportFile()),
  updateSystemConfig: requires('config:write')
    .input(systemConfigUpdate)
    .mutation(({ ctx, input }) => ctx.services.settings.updateSystemConfig(input)),
});
