import { oidcStateFromCookie } from './session-cookie';
import type { Caller } from './caller';
export type RequestParts = {
  body: Record<string, unknown> | undefined;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  headers: Record<string, string | undefined>;
  /** The uploaded file, for routes with `upload`. */
  file?: Buffer;
};

const b = (r: RequestParts) => r.body ?? {};

/** How a procedure's result becomes a response body. */
/** `redirect`: `{location, state?}`; a `state` key sets (or, undefined, clears) the sign-in flow's cookie. */
export type ReplyShape = 'envelope' | 'raw' | 'message' | 'login' | 'download' | 'html' | 'text' | 'redirect';

export type RestRoute = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  call: (caller: Caller, req: RequestParts) => Promise<unknown>;
  reply?: ReplyShape;
  /** File name for `download` replies. */
  filename?: string;
  /** Multipart field holding the uploaded file. */
  upload?: string;
  /** For Server-Sent Events routes: the subscription whose events are streamed. */
  sse?: (caller: Caller, req: RequestParts) => Promise<AsyncIterable<unknown>>;
  /** Login starts a cookie session (when configured), logout ends it. */
  session?: 'start' | 'end';
  /** Splits one subscription event into the SSE events clients expect. */
  sseEvents?: (id: string | undefined, data: unknown) => Array<{ id?: string; data: unknown }>;
};

/** Each documented REST path, mapped onto exactly one procedure. */
export const restRoutes: RestRoute[] = [
  { method: 'GET', url: '/health', call: (c) => c.system.health(), reply: 'raw' },
  { method: 'GET', url: '/config', call: (c) => c.system.config() },
  { method: 'GET', url: '/public-config', call: (c) => c.system.publicConfig() },

  { method: 'GET', url: '/oauth/client-metadata.json', call: (c) => c.servers.oauthClientMetadata(), reply: 'raw' },
  { method: 'GET', url: '/oauth/callback', call: (c, r) => c.servers.oauthCallback(r.query as never), reply: 'html' },
  { method: 'GET', url: '/auth/oidc/login', call: (c) => c.oidc.start(), reply: 'redirect' },
  { method: 'GET', url: '/auth/oidc/callback', call: (c, r) => c.oidc.callback({ query: r.query as never, state: oidcStateFromCookie(r.headers.cookie) }), reply: 'redirect' },
  { method: 'POST', url: '/api/auth/oidc/exchange', call: (c, r) => c.oidc.exchange(b(r) as never), reply: 'login', session: 'start' },
  { method: 'POST', url: '/api/auth/login', call: (c, r) => c.auth.login(r.body as never), reply: 'login', session: 'start' },
  { method: 'POST', url: '/api/auth/logout', call: (c) => c.auth.logout(), reply: 'message', session: 'end' },
  { method: 'POST', url: '/api/auth/logout-all', call: (c) => c.auth.logoutAll(), reply: 'message', session: 'end' },
  { method: 'GET', url: '/api/auth/verify', call: (c) => c.auth.verify() },
  { method: 'GET', url: '/api/auth/me', call: (c) => c.auth.verify() },
  { method: 'GET', url: '/api/auth/permissions', call: (c) => c.auth.permissions() },

  { method: 'POST', url: '/api/auth/mfa/enable', call: (c, r) => c.auth.mfaEnable(b(r) as never) },
  { method: 'POST', url: '/api/auth/mfa/verify', call: (c, r) => c.auth.mfaVerify(b(r) as never) },
  { method: 'POST', url: '/api/auth/mfa/disable', call: (c, r) => c.auth.mfaDisable(b(r) as never) },
  { method: 'POST', url: '/api/auth/api-keys', call: (c, r) => c.keys.create(b(r) as never) },
  { method: 'GET', url: '/api/auth/api-keys', call: (c) => c.keys.list() },
  { method: 'DELETE', url: '/api/auth/api-keys/:id', call: (c, r) => c.keys.revoke({ id: r.params.id! }), reply: 'message' },
  { method: 'POST', url: '/api/auth/users', call: (c, r) => c.auth.createUser(b(r) as never) },
  { method: 'POST', url: '/api/auth/change-password', call: (c, r) => c.auth.changePassword(b(r) as never), reply: 'message', session: 'start' },

  { method: 'GET', url: '/api/groups', call: (c) => c.groups.list() },
  { method: 'POST', url: '/api/groups', call: (c, r) => c.groups.create(b(r) as never) },
  { method: 'GET', url: '/api/groups/:id', call: (c, r) => c.groups.get({ id: r.params.id! }) },
  { method: 'PUT', url: '/api/groups/:id', call: (c, r) => c.groups.update({ ...b(r), id: r.params.id } as never) },
  { method: 'DELETE', url: '/api/groups/:id', call: (c, r) => c.groups.remove({ id: r.params.id! }), reply: 'message' },
  { method: 'POST', url: '/api/groups/:id/servers', call: (c, r) => c.groups.addServer({ ...b(r), id: r.params.id } as never) },
  { method: 'DELETE', url: '/api/groups/:id/servers/:serverName', call: (c, r) => c.groups.removeServer({ id: r.params.id!, serverName: r.params.serverName! }) },
  { method: 'PUT', url: '/api/groups/:id/servers/batch', call: (c, r) => c.groups.setServers({ ...b(r), id: r.params.id } as never) },
  { method: 'GET', url: '/api/groups/:id/server-configs', call: (c, r) => c.groups.serverConfigs({ id: r.params.id! }) },
  {
    method: 'PUT',
    url: '/api/groups/:id/server-configs/:serverName/tools',
    call: (c, r) => c.groups.setSelection({ id: r.params.id!, serverName: r.params.serverName!, kind: 'tools', selection: b(r).tools as never }),
  },
  ...(['prompts', 'resources'] as const).map((kind): RestRoute => ({
    method: 'PUT',
    url: `/api/groups/:id/server-configs/:serverName/${kind}`,
    call: (c, r) => c.groups.setSelection({ id: r.params.id!, serverName: r.params.serverName!, kind, selection: b(r)[kind] as never }),
  })),
  { method: 'POST', url: '/api/groups/:id/users', call: (c, r) => c.groups.addUser({ ...b(r), id: r.params.id } as never) },

  { method: 'GET', url: '/api/users', call: (c) => c.users.list() },
  { method: 'POST', url: '/api/users', call: (c, r) => c.users.create(b(r) as never) },
  { method: 'GET', url: '/api/users/:username', call: (c, r) => c.users.get({ username: r.params.username! }) },
  { method: 'PUT', url: '/api/users/:username', call: (c, r) => c.users.update({ ...b(r), username: r.params.username } as never) },
  { method: 'DELETE', url: '/api/users/:username', call: (c, r) => c.users.remove({ username: r.params.username! }), reply: 'message' },
  { method: 'GET', url: '/api/users-stats', call: (c) => c.users.stats() },
  { method: 'GET', url: '/api/audit/logs', call: (c, r) => c.users.audit(r.query as never) },

  { method: 'GET', url: '/api/logs', call: (c, r) => c.logs.list(r.query as never) },
  { method: 'DELETE', url: '/api/logs', call: (c) => c.logs.clear(), reply: 'message' },
  { method: 'GET', url: '/api/logs/aggregate', call: (c, r) => c.logs.aggregate(r.query as never) },
  {
    method: 'GET',
    url: '/api/logs/stream',
    call: async () => undefined,
    sse: (c, r) => c.logs.stream({ ...(r.query as object), lastEventId: r.headers['last-event-id'] } as never),
    // The spec's stream: one `{type:'log', log}` event per entry after the initial one.
    sseEvents: (id, data) => {
      const d = data as { type: string; logs: Array<{ id: number }> };
      return d.type === 'logs' ? d.logs.map((log) => ({ id: String(log.id), data: { type: 'log', log } })) : [{ id, data }];
    },
  },

  { method: 'GET', url: '/api/monitoring/scrape', call: (c) => c.monitoring.scrape(), reply: 'text' },
  { method: 'GET', url: '/api/monitoring/metrics', call: (c, r) => c.monitoring.metrics(r.query as never) },
  { method: 'POST', url: '/api/monitoring/metrics', call: (c, r) => c.monitoring.recordMetric(b(r) as never), reply: 'message' },
  { method: 'GET', url: '/api/monitoring/health', call: (c) => c.monitoring.health() },
  { method: 'GET', url: '/api/monitoring/overview', call: (c) => c.monitoring.overview() },
  { method: 'GET', url: '/api/monitoring/errors', call: (c, r) => c.monitoring.errors(r.query as never) },
  { method: 'GET', url: '/api/monitoring/database', call: (c) => c.monitoring.database() },
  { method: 'GET', url: '/api/monitoring/slow-queries', call: (c) => c.monitoring.slowQueries() },

  { method: 'GET', url: '/api/smart-routing/status', call: (c) => c.smart.status() },
  { method: 'POST', url: '/api/smart-routing/search', call: (c, r) => c.smart.search(b(r) as never) },
  { method: 'POST', url: '/api/smart-routing/reindex', call: (c) => c.smart.reindex() },

  { method: 'GET', url: '/api/settings', call: (c) => c.settings.get() },
  { method: 'PUT', url: '/api/system-config', call: (c, r) => c.settings.updateSystemConfig(r.body as never) },
  { method: 'GET', url: '/api/servers', call: (c) => c.servers.list() },
  { method: 'GET', url: '/api/catalog', call: (c, r) => c.servers.catalog({ query: (r.query as { query?: string }).query }) },
  { method: 'GET', url: '/api/servers/:name', call: (c, r) => c.servers.get({ name: r.params.name! }) },
  { method: 'POST', url: '/api/servers', call: (c, r) => c.servers.create(b(r) as never) },
  { method: 'PUT', url: '/api/servers/:name', call: (c, r) => c.servers.update({ ...b(r), name: r.params.name } as never) },
  { method: 'DELETE', url: '/api/servers/:name', call: (c, r) => c.servers.remove({ name: r.params.name! }), reply: 'message' },
  { method: 'POST', url: '/api/mcpb/upload', upload: 'mcpbFile', call: (c, r) => c.servers.importBundle({ data: r.file as Uint8Array<ArrayBuffer> }) },
  { method: 'POST', url: '/api/servers/:name/toggle', call: (c, r) => c.servers.toggle({ ...b(r), name: r.params.name } as never) },
  ...(['tools', 'prompts'] as const).flatMap((kind): RestRoute[] => {
    const param = kind === 'tools' ? 'toolName' : 'promptName';
    const base = `/api/servers/:serverName/${kind}/:${param}`;
    const at = (r: RequestParts) => ({ kind, server: r.params.serverName!, item: r.params[param]! });
    return [
      { method: 'POST', url: `${base}/toggle`, call: (c, r) => c.servers.toggleItem({ ...b(r), ...at(r) } as never) },
      { method: 'PUT', url: `${base}/description`, call: (c, r) => c.servers.describeItem({ ...b(r), ...at(r) } as never) },
      { method: 'DELETE', url: `${base}/description`, call: (c, r) => c.servers.resetItemDescription(at(r)) },
    ];
  }),

  { method: 'GET', url: '/api/tool-changes', call: (c) => c.pins.changes() },
  { method: 'GET', url: '/api/auth/secrets', call: (c) => c.secrets.list() },
  { method: 'PUT', url: '/api/auth/secrets/:name', call: (c, r) => c.secrets.set({ ...b(r), name: r.params.name } as never) },
  { method: 'DELETE', url: '/api/auth/secrets/:name', call: (c, r) => c.secrets.remove({ name: r.params.name! }) },
  { method: 'GET', url: '/api/auth/api-keys/:id/secrets', call: (c, r) => c.secrets.list({ keyId: r.params.id }) },
  { method: 'PUT', url: '/api/auth/api-keys/:id/secrets/:name', call: (c, r) => c.secrets.set({ ...b(r), name: r.params.name, keyId: r.params.id } as never) },
  { method: 'DELETE', url: '/api/auth/api-keys/:id/secrets/:name', call: (c, r) => c.secrets.remove({ name: r.params.name!, keyId: r.params.id }) },
  ...(['approve', 'reject'] as const).flatMap((d) =>
    (['tools', 'prompts'] as const).map((kind): RestRoute => ({
      method: 'POST',
      url: `/api/servers/:serverName/${kind}/:name/${d}-change`,
      call: (c, r) => c.pins[d]({ server: r.params.serverName!, tool: r.params.name!, kind }),
    })),
  ),
  {
    method: 'POST',
    url: '/api/tools/call/:server',
    call: (c, r) => c.tools.callTool({ ...b(r), server: r.params.server, sessionId: r.headers['x-session-id'] } as never),
  },
  {
    method: 'GET',
    url: '/api/tools/:serverName/:toolName',
    call: (c, r) => c.tools.callOpen({ server: r.params.serverName!, toolName: r.params.toolName!, arguments: r.query }),
  },
  {
    method: 'POST',
    url: '/api/tools/:serverName/:toolName',
    call: (c, r) => c.tools.callOpen({ server: r.params.serverName!, toolName: r.params.toolName!, arguments: b(r) }),
  },
  { method: 'GET', url: '/api/openapi.json', call: (c) => c.tools.openapi(), reply: 'raw' },
  {
    method: 'POST',
    url: '/api/mcp/:serverName/prompts/:promptName',
    call: (c, r) => c.tools.getPrompt({ ...b(r), server: r.params.serverName, prompt: r.params.promptName } as never),
  },

  {
    method: 'GET',
    url: '/api/mcp-settings/export',
    call: (c, r) => c.settings.export(r.query as never),
    reply: 'download',
    filename: 'mcp_settings.json',
  },
];
