import { z } from 'zod';
import { tracked } from '@trpc/server';
import { itemKinds, nameRef, resourceName, serverConfigInput } from '@hub/contract';
import { audited, publicProcedure, requires, router } from '../trpc/init';
import { iterateTopic } from '../events/iterate';
import { liveAccess } from '../trpc/live';
import { readScope } from '../auth/access';

const name = z.object({ name: nameRef });
const item = z.object({ kind: z.enum(itemKinds), server: nameRef, item: nameRef });

export const serversRouter = router({
  list: requires('servers:read').query(({ ctx }) => ctx.services.servers.list(ctx.principal)),
  /** Installable servers, searchable by name, description or tag. */
  catalog: requires('servers:read')
    .input(z.object({ query: z.string().max(200, 'at most 200 characters').optional() }).default({}))
    .query(({ ctx, input }) => ctx.services.catalogue.list(input.query)),
  get: requires('servers:read').input(name).query(({ ctx, input }) => ctx.services.servers.viewFor(ctx.principal, input.name)),
  create: requires('servers:write').use(audited('config_change'))
    .input(z.object({ name: resourceName, config: serverConfigInput }))
    .mutation(({ ctx, input }) => ctx.services.servers.create(ctx.principal, input.name, input.config)),
  update: requires('servers:write').use(audited('config_change'))
    .input(z.object({ name: nameRef, config: serverConfigInput, newName: resourceName.optional() }))
    .mutation(({ ctx, input }) => ctx.services.servers.update(ctx.principal, input.name, input.config, input.newName)),
  remove: requires('servers:write').use(audited('config_change')).input(name).mutation(async ({ ctx, input }) => {
    await ctx.services.servers.remove(input.name);
    return { message: `Server ${input.name} deleted` };
  }),
  /** An MCP bundle (.mcpb): raw bytes from REST, base64 from WebSocket clients. */
  importBundle: requires('servers:write').use(audited('config_change'))
    .input(z.object({ data: z.union([z.instanceof(Uint8Array), z.base64()], { message: 'must be the bundle bytes or base64' }) }))
    .mutation(({ ctx, input }) =>
      ctx.services.servers.importBundle(ctx.principal, typeof input.data === 'string' ? Buffer.from(input.data, 'base64') : Buffer.from(input.data)),
    ),
  toggle: requires('servers:write').use(audited('config_change'))
    .input(z.object({ name: nameRef, enabled: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.services.servers.toggle(ctx.principal, input.name, input.enabled)),
  toggleItem: requires('tools:write').use(audited('config_change'))
    .input(item.extend({ enabled: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.services.servers.setItem(ctx.principal, input.server, input.kind, input.item, { enabled: input.enabled })),
  describeItem: requires('tools:write').use(audited('config_change'))
    .input(item.extend({ description: z.string().max(10_000) }))
    .mutation(({ ctx, input }) => ctx.services.servers.setItem(ctx.principal, input.server, input.kind, input.item, { description: input.description })),
  /** Restores the upstream's own description. */
  resetItemDescription: requires('tools:write').use(audited('config_change'))
    .input(item)
    .mutation(({ ctx, input }) => ctx.services.servers.setItem(ctx.principal, input.server, input.kind, input.item, { description: null })),

  /** Where an upstream's OAuth provider sends the user back; called by the provider, not by clients. */
  /** Hub's Client ID Metadata Document, for authorization servers that take a URL as client id. */
  oauthClientMetadata: publicProcedure.query(({ ctx }) => {
    const base = ctx.services.publicUrl();
    const callback = `${base}/oauth/callback`;
    return {
      client_id: `${base}/oauth/client-metadata.json`,
      client_name: 'Hub',
      redirect_uris: [callback],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }),

  oauthCallback: publicProcedure
    .input(z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() }))
    .mutation(({ ctx, input }) => ctx.services.servers.finishOAuth(input)),

  /**
   * Status and tool-list changes of every server the caller may see, live.
   * Status is a state, not a history: resuming (`lastEventId`) first sends
   * every server's current status. Re-scoped at once when the caller's
   * access changes; ends when the caller loses `servers:read` or signs out.
   */
  onStatus: requires('servers:read')
    .input(z.object({ lastEventId: z.string().nullish() }).optional())
    .subscription(async function* ({ ctx, input, signal }) {
      const access = liveAccess(ctx, 'servers:read', signal);
      const feed = iterateTopic(ctx.services.bus, 'server.status', { signal: access.signal, maxQueue: 500 });
      const scope = access.derive((p) => readScope(p, ctx.services.store.get()));
      let seq = 0;
      const id = () => `${Date.now()}-${++seq}`;
      try {
        if (input?.lastEventId) {
          for (const s of ctx.services.servers.list(access.principal())) {
            yield tracked(id(), { name: s.name, status: s.status, error: s.error, at: new Date().toISOString(), change: 'status' as const, tools: s.tools.length });
          }
        }
        for await (const { payload } of feed) {
          if (scope()?.server(payload.name) ?? true) yield tracked(id(), payload);
        }
      } finally {
        await feed.return(undefined);
        access.finish();
      }
    }),
});
