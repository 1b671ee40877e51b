import { z } from 'zod';
import { apiKeyCreate, nameRef } from '@hub/contract';
import { audited, requires, router } from '../trpc/init';

export const keysRouter = router({
  /** The key is in the answer once; only its hash is kept. */
  create: requires('keys:write').use(audited('permission_change')).input(apiKeyCreate).mutation(({ ctx, input }) => ctx.services.keys.create(ctx.principal, input)),
  list: requires('keys:read').query(({ ctx }) => ctx.services.keys.list(ctx.principal)),
  revoke: requires('keys:write')
    .use(audited('permission_change'))
    .input(z.object({ id: nameRef }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.keys.revoke(ctx.principal, input.id);
      return { message: `API key ${input.id} revoked` };
    }),
});
