import { z } from 'zod';
import { nameRef } from '@hub/contract';
import { audited, requires, router } from '../trpc/init';

/** `tool` names the tool, or with `kind: 'prompts'` the prompt. */
const tool = z.object({ server: nameRef, tool: nameRef, kind: z.enum(['tools', 'prompts']).default('tools') });

/** Tool pinning: changes an upstream made to pinned tools and prompts, and an admin's decision on each. */
export const pinsRouter = router({
  changes: requires('tools:read').query(({ ctx }) => ctx.services.pins.list(ctx.principal)),
  approve: requires('config:write').use(audited('config_change'))
    .input(tool)
    .mutation(({ ctx, input }) => ctx.services.pins.decide(input.server, input.tool, true, input.kind)),
  reject: requires('config:write').use(audited('config_change'))
    .input(tool)
    .mutation(({ ctx, input }) => ctx.services.pins.decide(input.server, input.tool, false, input.kind)),
});
