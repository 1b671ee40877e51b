import { z } from 'zod';
import { tracked } from '@trpc/server';
import { authedProcedure, publicProcedure, router } from '../trpc/init';
import { byResource } from '../auth/permissions';
import { iterateTopic } from '../events/iterate';
import { liveAccess } from '../trpc/live';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

export const systemRouter = router({
  health: publicProcedure.query(() => ({
    status: 'ok',
    timestamp: new Date().toISOString(),
    uptime: process.uptime(),
  })),

  config: publicProcedure.query(({ ctx }) => ({
    basePath: '',
    version: ctx.services.config.version,
    name: 'Hub',
  })),

  publicConfig: publicProcedure.query(({ ctx }) => ({
    skipAuth: ctx.services.settings.routing().skipAuth,
    oidc: ctx.services.oidc.publicView(),
    permissions: byResource(ctx.principal?.permissions ?? []),
  })),

  /** A steady pulse with live figures: proves the live path end to end. */
  heartbeat: authedProcedure
    .input(z.object({ intervalMs: z.number().int().min(100).max(60_000).default(5000) }).default({ intervalMs: 5000 }))
    .subscription(async function* ({ ctx, input, signal: outer }) {
      const access = liveAccess(ctx, null, outer);
      const signal = access.signal;
      let seq = 0;
      try {
        while (!signal.aborted) {
          seq++;
          yield tracked(String(seq), {
            seq,
            time: new Date().toISOString(),
            uptime: process.uptime(),
            revision: ctx.services.store.revision,
            memoryMb: Math.round(process.memoryUsage().rss / 1048576),
          });
          await sleep(input.intervalMs, signal);
        }
      } finally {
        access.finish();
      }
    }),

  /** Settings revisions as they happen; resumes with the current revision if one was missed. */
  onSettingsChanged: authedProcedure
    .input(z.object({ lastEventId: z.string().nullish() }).optional())
    .subscription(async function* ({ ctx, input, signal }) {
      const access = liveAccess(ctx, null, signal);
      const feed = iterateTopic(ctx.services.bus, 'settings.changed', { signal: access.signal, maxQueue: 100 });
      try {
        const current = ctx.services.store.revision;
        if (input?.lastEventId != null && Number(input.lastEventId) < current) {
          yield tracked(String(current), { revision: current, at: new Date().toISOString() });
        }
        for await (const { payload } of feed) yield tracked(String(payload.revision), payload);
      } finally {
        await feed.return(undefined);
        access.finish();
      }
    }),
});
