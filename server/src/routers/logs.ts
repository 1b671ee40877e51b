import { z } from 'zod';
import { tracked } from '@trpc/server';
import { requires, requiresFeed, router } from '../trpc/init';
import { levels, matches } from '../monitoring/logs';
import { iterateBatches } from '../events/iterate';
import { readScope } from '../auth/access';
import { liveAccess } from '../trpc/live';
import type { Principal } from '../auth/principal';
import type { Services } from '../services';

const date = z.coerce.date({ message: 'must be an ISO 8601 date' });
export const logFilter = z.object({
  level: z.enum(levels, { message: `must be one of ${levels.join(', ')}` }).optional(),
  since: date.optional(),
  from: date.optional(),
  to: date.optional(),
  server: z.string().min(1).optional(),
  requestId: z.string().min(1).optional(),
  type: z.enum(['hub', 'server', 'tool_call']).optional(),
  limit: z.coerce.number().int().min(1).max(5000).default(500),
});

/** The entries a caller may read (see auth/access.ts readScope). */
const visibleTo = (services: Services, p: Principal) => readScope(p, services.store.get())?.log ?? null;

export const logsRouter = router({
  list: requiresFeed('logs:read')
    .input(logFilter.default({ limit: 500 }))
    .query(({ ctx, input: { limit, ...filter } }) => ctx.services.logs.query({ ...filter, visible: visibleTo(ctx.services, ctx.principal) }, limit)),

  clear: requires('logs:write').mutation(({ ctx }) => {
    const n = ctx.services.logs.clear();
    return { message: `Cleared ${n} log entries` };
  }),

  aggregate: requiresFeed('logs:read')
    .input(
      z
        .object({
          groupBy: z.enum(['server', 'hour', 'level', 'type']).default('server'),
          level: logFilter.shape.level,
          type: logFilter.shape.type,
          since: logFilter.shape.since,
        })
        .default({ groupBy: 'server' }),
    )
    .query(({ ctx, input: { groupBy, ...filter } }) => ({
      groupBy,
      counts: ctx.services.logs.aggregate(groupBy, { ...filter, visible: visibleTo(ctx.services, ctx.principal) }),
    })),

  /**
   * Live log feed: first `{type:'initial', logs}` (everything after
   * `lastEventId` when resuming), then `{type:'logs', logs}` with the entries
   * of each ~20 ms. The REST SSE stream is this same procedure, written out
   * as one `{type:'log', log}` event per entry. What the caller may read is
   * worked out again after each settings change; the feed ends when the
   * caller loses `logs:read` or signs out.
   */
  stream: requiresFeed('logs:read')
    .input(logFilter.extend({ lastEventId: z.string().nullish() }).default({ limit: 500 }))
    .subscription(async function* ({ ctx, input: { limit, lastEventId, ...filter }, signal }) {
      const logs = ctx.services.logs;
      const access = liveAccess(ctx, 'logs:read', signal);
      // Subscribe before taking the snapshot, so nothing falls between them.
      const feed = iterateBatches(ctx.services.bus, 'log.entry', { signal: access.signal, maxQueue: 5000, windowMs: 20 });
      const visible = access.derive((p) => visibleTo(ctx.services, p));
      try {
        const afterId = lastEventId != null && /^\d+$/.test(lastEventId) ? Number(lastEventId) : undefined;
        const initial = logs.query({ ...filter, afterId, visible: visible() }, limit);
        const seen = Math.max(afterId ?? 0, initial.at(-1)?.id ?? 0, logs.lastId);
        yield tracked(String(seen), { type: 'initial' as const, logs: initial });
        for await (const { payloads, dropped } of feed) {
          const f = { ...filter, visible: visible() };
          const fresh = payloads.filter((p) => p.id > seen && matches(p, f));
          if (fresh.length === 0) continue;
          yield tracked(String(fresh.at(-1)!.id), { type: 'logs' as const, logs: fresh, ...(dropped ? { dropped } : {}) });
        }
      } finally {
        await feed.return(undefined);
        access.finish();
      }
    }),
});
