import { z } from 'zod';
import { requires, router } from '../trpc/init';

export const smartRouter = router({
  status: requires('config:read').query(({ ctx }) => ctx.services.smart.status()),
  /** Try a query as an agent would (the caller's own access applies). */
  search: requires('tools:read')
    .input(z.object({ query: z.string().trim().min(1, 'is required').max(1000), limit: z.number().int().min(1).max(50).default(10) }))
    .query(async ({ ctx, input }) => {
      const scope = ctx.services.catalog.scopeFor('all', ctx.principal);
      return ctx.services.smart.search(input.query, input.limit, (name) => scope?.toolIndex.has(name) ?? false);
    }),
  reindex: requires('config:write').mutation(async ({ ctx }) => {
    await ctx.services.smart.settle();
    return ctx.services.smart.status();
  }),
});
