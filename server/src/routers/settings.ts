import { systemConfigUpdate } from '@hub/contract';
import { audited, requires, router } from '../trpc/init';

export const settingsRouter = router({
  get: requires('config:read').query(({ ctx }) => ctx.services.settings.dump()),
  export: requires('config:read').query(({ ctx }) => ctx.services.settings.exportFile()),
  updateSystemConfig: requires('config:write')
    .use(audited('config_change'))
    .input(systemConfigUpdate)
    .mutation(({ ctx, input }) => ctx.services.settings.updateSystemConfig(input)),
});
