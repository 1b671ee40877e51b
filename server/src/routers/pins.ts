import { z } from 'zod';
import { nameRef } from '@hub/contract';
import { audited, requires, router } from '../trpc/init';

const tool = z.object({ server: nameRef, tool: nameRef });

/** Tool pinning: changes an upstream made to pinned tools, and an admin's decision on each. */
export const pinsRouter = router({
  changes: requires('tools:read').query(({ ctx }) => ctx.services.pins.list(ctx.principal)),
  approve: requires('config:write').use(audited('config_change'))
    .input(tool)
    .mutation(({ ctx, input }) => ctx.services.pins.decide(input.server, input.tool, true)),
  reject: requires('config:write').use(audited('config_change'))
    .input(tool)
    .mutation(({ ctx, input }) => ctx.services.pins.decide(input.server, input.tool, false)),
});
