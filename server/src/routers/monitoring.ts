import { z } from 'zod';
import { tracked, TRPCError } from '@trpc/server';
import { nameRef, safeKey } from '@hub/contract';
import { requires, requiresFeed, router } from '../trpc/init';
import { iterateTopic } from '../events/iterate';
import { readScope } from '../auth/access';
import { liveAccess } from '../trpc/live';
import type { Services } from '../services';
import type { Principal } from '../auth/principal';
import { duration } from '../config';

const range = duration.optional();

/** The tool calls a caller may read (all, for unrestricted callers). */
const calls = (ctx: { services: Services; principal: Principal }) => readScope(ctx.principal, ctx.services.store.get())?.call ?? null;

export const monitoringRouter = router({
  scrape: requires('monitoring:read').query(async ({ ctx }) => ({ text: await ctx.services.metrics.scrape(), contentType: ctx.services.metrics.contentType })),

  metrics: requiresFeed('monitoring:read')
    .input(z.object({ server: nameRef.optional(), range: range.default(3600) }).default({ range: 3600 }))
    .query(({ ctx, input }) => ({ server: input.server ?? null, rangeSeconds: input.range, ...ctx.services.activity.summary(input.range * 1000, input.server, calls(ctx)) })),

  recordMetric: requires('monitoring:write')
    .input(
      z.object({
        name: z.string().min(1).max(100).regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'must match [a-zA-Z_:][a-zA-Z0-9_:]*'),
        type: z.enum(['counter', 'gauge', 'histogram']).default('gauge'),
        tags: z.record(safeKey.regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'tag names must match [a-zA-Z_][a-zA-Z0-9_]*'), z.string()).default({}),
        value: z.number().finite(),
      }),
    )
    .mutation(({ ctx, input }) => {
      try {
        ctx.services.metrics.record(input);
      } catch (err) {
        throw new TRPCError({ code: 'BAD_REQUEST', message: (err as Error).message });
      }
      return { message: `Recorded ${input.type} hub_custom_${input.name}` };
    }),

  health: requires('monitoring:read').query(({ ctx }) => {
    const servers = ctx.services.servers.list(ctx.principal).map((s) => ({ name: s.name, status: s.status, error: s.error }));
    const down = servers.filter((s) => s.status === 'error' || s.status === 'disconnected');
    const cluster = ctx.services.cluster;
    return {
      status: down.length ? 'degraded' : 'ok',
      uptime: process.uptime(),
      timestamp: new Date().toISOString(),
      servers,
      store: ctx.services.store.stats().failedWrites ? 'degraded' : 'ok',
      // Which replica answered, and whether it runs the once-per-Hub jobs.
      replica: { id: cluster.replicaId, leader: cluster.leader.isLeader, storage: cluster.db ? 'postgres' : 'lowdb' },
    };
  }),

  overview: requiresFeed('monitoring:read').query(({ ctx }) => {
    const servers = ctx.services.servers.list(ctx.principal);
    const byStatus: Record<string, number> = Object.create(null);
    for (const s of servers) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
    const recent = ctx.services.activity.summary(5 * 60_000, undefined, calls(ctx));
    return {
      servers: { total: servers.length, byStatus },
      tools: ctx.services.catalog.scopeFor('all', ctx.principal)?.tools.length ?? 0,
      sessions: ctx.services.sessions.size,
      calls: { lastMinute: ctx.services.activity.window(60_000, undefined, calls(ctx)).length, lastHour: ctx.services.activity.window(3_600_000, undefined, calls(ctx)).length },
      errorRate: recent.errorRate,
      latencyMs: recent.latencyMs,
    };
  }),

  errors: requiresFeed('monitoring:read')
    .input(
      z
        .object({
          groupBy: z.enum(['server', 'tool', 'hour']).default('server'),
          since: range.default(86_400),
          server: nameRef.optional(),
          details: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).default(false),
        })
        .default({ groupBy: 'server', since: 86_400, details: false }),
    )
    .query(({ ctx, input }) => {
      const failed = ctx.services.activity.window(input.since * 1000, input.server, calls(ctx)).filter((c) => !c.ok);
      const counts: Record<string, number> = Object.create(null);
      for (const c of failed) {
        const key = input.groupBy === 'hour' ? `${new Date(c.at).toISOString().slice(0, 13)}:00:00Z` : input.groupBy === 'tool' ? `${c.server}/${c.tool}` : c.server;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return {
        groupBy: input.groupBy,
        total: failed.length,
        counts,
        ...(input.details ? { errors: failed.slice(-100).map((c) => ({ ...c, at: new Date(c.at).toISOString() })) } : {}),
      };
    }),

  database: requires('monitoring:read').query(({ ctx }) => ctx.services.store.stats()),

  slowQueries: requiresFeed('monitoring:read').query(({ ctx }) => ({
    toolCalls: ctx.services.activity.slowest(3_600_000, 20, calls(ctx)).map((c) => ({ ...c, at: new Date(c.at).toISOString() })),
    storeWrites: ctx.services.store.stats().slowestWrites,
  })),

  /** Tool-call activity, live: for restricted callers, their own calls on servers they can see. */
  onCall: requiresFeed('tools:read').subscription(async function* ({ ctx, signal }) {
    const access = liveAccess(ctx, 'tools:read', signal);
    const feed = iterateTopic(ctx.services.bus, 'tool.call', { signal: access.signal, maxQueue: 1000 });
    const scope = access.derive((p) => readScope(p, ctx.services.store.get()));
    let seq = 0;
    try {
      for await (const { payload } of feed) {
        const s = scope();
        if (!s || s.call(payload)) yield tracked(`${Date.now()}-${++seq}`, payload);
      }
    } finally {
      await feed.return(undefined);
      access.finish();
    }
  }),
});
