import { z } from 'zod';
import { systemConfigUpdate } from '@hub/contract';
import { audited, requires, router } from '../trpc/init';

export const settingsRouter = router({
  get: requires('config:read').query(({ ctx }) => ctx.services.settings.dump(ctx.principal)),
  /** With `includeSecrets` (admins only) the export keeps secret values; otherwise they are masked. */
  export: requires('config:read')
    .input(z.object({ includeSecrets: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).default(false) }).default({ includeSecrets: false }))
    .query(({ ctx, input }) => ctx.services.settings.exportFile(ctx.principal, input.includeSecrets)),
  updateSystemConfig: requires('config:write')
    .use(audited('config_change'))
    .input(systemConfigUpdate)
    .mutation(({ ctx, input }) => ctx.services.settings.updateSystemConfig(input)),
});
