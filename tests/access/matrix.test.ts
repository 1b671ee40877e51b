/**
 * Every REST route and every tRPC procedure and subscription against every
 * kind of caller (tests/helpers/callers.ts). The tables below say, once per
 * operation, what it needs; `expected` turns that into the answer each
 * caller must get. Both tables are checked to cover every route and
 * procedure Hub has, so a new one cannot slip in without a row.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { createTRPCClient, createWSClient, wsLink, TRPCClientError } from '@trpc/client';
import WebSocket from 'ws';
import { restRoutes, appRouter, type AppRouter } from '@hub/server';
import { ADMIN, type TestHub } from '../helpers/hub';
import { matrixHub, restHeaders, GROUP_ID, type Caller } from '../helpers/callers';
import { bundle } from '../helpers/zip';

type Need = 'public' | 'authed' | 'session' | `${string}:${string}` | `${string}:${string}+admin`;
type Ctx = { c: Caller; n: number };
type Row = {
  /** What it needs: no one, any valid credential, a signed-in session, a permission (+admin: and admin's role). */
  need: Need;
  /** It names the server `everything`: callers who cannot see it get 404. */
  server?: boolean;
  /** The status of a permitted call, when not 200. */
  ok?: number;
  /** Ends the caller's session (it signs in again afterwards). */
  ends?: boolean;
};
type RestRow = Row & { method: string; url: string; path?: (x: Ctx) => string; body?: (x: Ctx) => unknown; upload?: (x: Ctx) => Promise<Buffer> };
type TrpcRow = Row & { input?: (x: Ctx) => unknown; sub?: boolean };

function expected(c: Caller, r: Row): number {
  if (r.need === 'public') return r.ok ?? 200;
  if (!c.perms) return 401;
  if (r.need === 'session') return c.session ? (r.ok ?? 200) : 403;
  if (r.need !== 'authed') {
    const [perm, admin] = r.need.split('+');
    if (!c.perms.has(perm!) || (admin && !c.admin)) return 403;
  }
  if (r.server && !c.sees) return 404;
  return r.ok ?? 200;
}

const tag = (c: Caller) => c.name.replace(/[^A-Za-z0-9]/g, '');
const uniq = (p: string, x: Ctx) => `${p}-${tag(x.c)}-${x.n}`;
// Destructive rows act on records made for the purpose in before(), one per caller and row.
const doomed = (x: Ctx, kind: string) => `${kind}-${tag(x.c)}`;
/** A key's permissions: what the caller holds of keys:*, so a permitted caller may create it. */
const keyPerms = (x: Ctx) => {
  const held = [...(x.c.perms ?? [])].filter((p) => p.startsWith('keys:'));
  return held.length ? held : ['keys:read'];
};
const sse = { type: 'sse', url: 'http://127.0.0.1:9/sse' };
const echo = '/api/servers/everything/tools/echo';
const simple = '/api/servers/everything/prompts/simple-prompt';

const rest: RestRow[] = [
  { method: 'GET', url: '/health', need: 'public' },
  { method: 'GET', url: '/config', need: 'public' },
  { method: 'GET', url: '/public-config', need: 'public' },
  { method: 'GET', url: '/oauth/callback', path: () => '/oauth/callback?code=c&state=unknown', need: 'public', ok: 404 },
  { method: 'GET', url: '/oauth/client-metadata.json', need: 'public', ok: 200 },
  { method: 'POST', url: '/api/auth/login', body: () => ADMIN, need: 'public' },
  // Not configured here: both redirect back to the console's sign-in page with the reason.
  { method: 'GET', url: '/auth/oidc/login', need: 'public' },
  { method: 'GET', url: '/auth/oidc/callback', path: () => '/auth/oidc/callback?code=c&state=s', need: 'public' },
  { method: 'POST', url: '/api/auth/oidc/exchange', body: () => ({ ticket: 'not-a-ticket' }), need: 'public', ok: 401 },
  { method: 'GET', url: '/api/auth/verify', need: 'authed' },
  { method: 'GET', url: '/api/auth/me', need: 'authed' },
  { method: 'GET', url: '/api/auth/permissions', need: 'authed' },
  { method: 'POST', url: '/api/auth/mfa/enable', body: ({ c }) => ({ type: 'totp', password: c.password }), need: 'session' },
  { method: 'POST', url: '/api/auth/mfa/verify', body: () => ({ code: '000000' }), need: 'session', ok: 400 },
  { method: 'POST', url: '/api/auth/mfa/disable', body: () => ({ code: '000000' }), need: 'session', ok: 400 },
  { method: 'POST', url: '/api/auth/api-keys', body: (x) => ({ name: uniq('k', x), permissions: keyPerms(x) }), need: 'keys:write' },
  { method: 'GET', url: '/api/auth/api-keys', need: 'keys:read' },
  { method: 'DELETE', url: '/api/auth/api-keys/:id', path: () => '/api/auth/api-keys/no-such-key', need: 'keys:write', ok: 404 },
  { method: 'POST', url: '/api/auth/users', body: (x) => ({ username: uniq('au', x), password: 'secret-pass' }), need: 'users:write' },
  { method: 'GET', url: '/api/groups', need: 'groups:read' },
  { method: 'POST', url: '/api/groups', body: (x) => ({ name: uniq('g', x) }), need: 'groups:write' },
  { method: 'GET', url: '/api/groups/:id', path: () => '/api/groups/fixed', need: 'groups:read' },
  { method: 'PUT', url: '/api/groups/:id', path: () => '/api/groups/fixed', body: () => ({ description: 'd' }), need: 'groups:write' },
  { method: 'DELETE', url: '/api/groups/:id', path: (x) => `/api/groups/${doomed(x, 'group')}`, need: 'groups:write' },
  { method: 'POST', url: '/api/groups/:id/servers', path: () => '/api/groups/fixed/servers', body: () => ({ serverName: 'everything' }), need: 'groups:write' },
  { method: 'DELETE', url: '/api/groups/:id/servers/:serverName', path: () => '/api/groups/fixed/servers/tmp', need: 'groups:write', ok: 404 },
  { method: 'PUT', url: '/api/groups/:id/servers/batch', path: () => '/api/groups/fixed/servers/batch', body: () => ({ servers: [{ name: 'everything', tools: 'all' }] }), need: 'groups:write' },
  { method: 'GET', url: '/api/groups/:id/server-configs', path: () => '/api/groups/fixed/server-configs', need: 'groups:read' },
  { method: 'PUT', url: '/api/groups/:id/server-configs/:serverName/tools', path: () => '/api/groups/fixed/server-configs/everything/tools', body: () => ({ tools: 'all' }), need: 'groups:write' },
  { method: 'PUT', url: '/api/groups/:id/server-configs/:serverName/prompts', path: () => '/api/groups/fixed/server-configs/everything/prompts', body: () => ({ prompts: 'all' }), need: 'groups:write' },
  { method: 'PUT', url: '/api/groups/:id/server-configs/:serverName/resources', path: () => '/api/groups/fixed/server-configs/everything/resources', body: () => ({ resources: 'all' }), need: 'groups:write' },
  { method: 'POST', url: '/api/groups/:id/users', path: () => '/api/groups/fixed/users', body: () => ({ userId: 'viewer' }), need: 'users:write' },
  { method: 'GET', url: '/api/users', need: 'users:read' },
  { method: 'POST', url: '/api/users', body: (x) => ({ username: uniq('u', x), password: 'secret-pass' }), need: 'users:write' },
  { method: 'GET', url: '/api/users/:username', path: () => '/api/users/viewer', need: 'users:read' },
  { method: 'PUT', url: '/api/users/:username', path: () => '/api/users/userWithout', body: () => ({ email: 'x@example.com' }), need: 'users:write' },
  { method: 'DELETE', url: '/api/users/:username', path: (x) => `/api/users/${doomed(x, 'user')}`, need: 'users:write' },
  { method: 'GET', url: '/api/users-stats', need: 'users:read' },
  { method: 'GET', url: '/api/audit/logs', need: 'users:read' },
  { method: 'GET', url: '/api/logs', need: 'logs:read' },
  { method: 'DELETE', url: '/api/logs', need: 'logs:write' },
  { method: 'GET', url: '/api/logs/aggregate', need: 'logs:read' },
  { method: 'GET', url: '/api/logs/stream', need: 'logs:read' },
  { method: 'GET', url: '/api/monitoring/scrape', need: 'monitoring:read' },
  { method: 'GET', url: '/api/monitoring/metrics', need: 'monitoring:read' },
  { method: 'POST', url: '/api/monitoring/metrics', body: () => ({ name: 'matrix', value: 1 }), need: 'monitoring:write' },
  { method: 'GET', url: '/api/monitoring/health', need: 'monitoring:read' },
  { method: 'GET', url: '/api/monitoring/overview', need: 'monitoring:read' },
  { method: 'GET', url: '/api/monitoring/errors', need: 'monitoring:read' },
  { method: 'GET', url: '/api/monitoring/database', need: 'monitoring:read' },
  { method: 'GET', url: '/api/monitoring/slow-queries', need: 'monitoring:read' },
  { method: 'GET', url: '/api/tool-changes', need: 'tools:read' },
  { method: 'GET', url: '/api/auth/secrets', need: 'authed' },
  { method: 'PUT', url: '/api/auth/secrets/:name', path: () => '/api/auth/secrets/MATRIX_TOKEN', body: () => ({ value: 'v' }), need: 'authed' },
  { method: 'DELETE', url: '/api/auth/secrets/:name', path: () => '/api/auth/secrets/MATRIX_TOKEN', need: 'authed' },
  // Only the key's owner manages its values: anyone else (here, everyone) is told it is not theirs.
  { method: 'GET', url: '/api/auth/api-keys/:id/secrets', path: () => '/api/auth/api-keys/no-such-key/secrets', need: 'authed', ok: 404 },
  { method: 'PUT', url: '/api/auth/api-keys/:id/secrets/:name', path: () => '/api/auth/api-keys/no-such-key/secrets/MATRIX_TOKEN', body: () => ({ value: 'v' }), need: 'authed', ok: 404 },
  { method: 'DELETE', url: '/api/auth/api-keys/:id/secrets/:name', path: () => '/api/auth/api-keys/no-such-key/secrets/MATRIX_TOKEN', need: 'authed', ok: 404 },
  { method: 'POST', url: '/api/servers/:serverName/tools/:name/approve-change', path: () => '/api/servers/everything/tools/echo/approve-change', need: 'config:write', ok: 404 },
  { method: 'POST', url: '/api/servers/:serverName/tools/:name/reject-change', path: () => '/api/servers/everything/tools/echo/reject-change', need: 'config:write', ok: 404 },
  { method: 'POST', url: '/api/servers/:serverName/prompts/:name/approve-change', path: () => '/api/servers/everything/prompts/simple-prompt/approve-change', need: 'config:write', ok: 404 },
  { method: 'POST', url: '/api/servers/:serverName/prompts/:name/reject-change', path: () => '/api/servers/everything/prompts/simple-prompt/reject-change', need: 'config:write', ok: 404 },
  { method: 'GET', url: '/api/smart-routing/status', need: 'config:read' },
  { method: 'POST', url: '/api/smart-routing/search', body: () => ({ query: 'echo' }), need: 'tools:read' },
  { method: 'POST', url: '/api/smart-routing/reindex', need: 'config:write' },
  { method: 'GET', url: '/api/settings', need: 'config:read' },
  { method: 'PUT', url: '/api/system-config', body: () => ({ mcpRouter: { title: 'matrix' } }), need: 'config:write' },
  { method: 'GET', url: '/api/mcp-settings/export', need: 'config:read' },
  { method: 'GET', url: '/api/servers', need: 'servers:read' },
  { method: 'GET', url: '/api/catalog', path: () => '/api/catalog?query=git', need: 'servers:read' },
  { method: 'GET', url: '/api/servers/:name', path: () => '/api/servers/everything', need: 'servers:read', server: true },
  { method: 'POST', url: '/api/servers', body: (x) => ({ name: uniq('remote', x), config: sse }), need: 'servers:write' },
  { method: 'PUT', url: '/api/servers/:name', path: () => '/api/servers/tmp', body: () => ({ config: sse }), need: 'servers:write' },
  { method: 'DELETE', url: '/api/servers/:name', path: (x) => `/api/servers/${doomed(x, 'server')}`, need: 'servers:write' },
  { method: 'POST', url: '/api/mcpb/upload', upload: (x) => bundle(uniq('bundle', x)), need: 'servers:write+admin' },
  { method: 'POST', url: '/api/servers/:name/toggle', path: () => '/api/servers/tmp/toggle', body: () => ({ enabled: true }), need: 'servers:write' },
  { method: 'POST', url: '/api/servers/:serverName/tools/:toolName/toggle', path: () => `${echo}/toggle`, body: () => ({ enabled: true }), need: 'tools:write' },
  { method: 'PUT', url: '/api/servers/:serverName/tools/:toolName/description', path: () => `${echo}/description`, body: () => ({ description: 'Echo' }), need: 'tools:write' },
  { method: 'DELETE', url: '/api/servers/:serverName/tools/:toolName/description', path: () => `${echo}/description`, need: 'tools:write' },
  { method: 'POST', url: '/api/servers/:serverName/prompts/:promptName/toggle', path: () => `${simple}/toggle`, body: () => ({ enabled: true }), need: 'tools:write' },
  { method: 'PUT', url: '/api/servers/:serverName/prompts/:promptName/description', path: () => `${simple}/description`, body: () => ({ description: 'Simple' }), need: 'tools:write' },
  { method: 'DELETE', url: '/api/servers/:serverName/prompts/:promptName/description', path: () => `${simple}/description`, need: 'tools:write' },
  { method: 'POST', url: '/api/tools/call/:server', path: () => '/api/tools/call/everything', body: () => ({ toolName: 'echo', arguments: { message: 'x' } }), need: 'tools:execute', server: true },
  { method: 'GET', url: '/api/tools/:serverName/:toolName', path: () => '/api/tools/everything/echo?message=x', need: 'public' },
  { method: 'POST', url: '/api/tools/:serverName/:toolName', path: () => '/api/tools/everything/echo', body: () => ({ message: 'x' }), need: 'public' },
  { method: 'GET', url: '/api/openapi.json', need: 'public' },
  { method: 'POST', url: '/api/mcp/:serverName/prompts/:promptName', path: () => '/api/mcp/everything/prompts/simple-prompt', body: () => ({ arguments: {} }), need: 'prompts:execute', server: true },
  // Last: these end the caller's sessions.
  { method: 'POST', url: '/api/auth/change-password', body: ({ c }) => ({ currentPassword: c.password ?? 'x', newPassword: c.password ?? 'x-x-x-x' }), need: 'session', ends: true },
  { method: 'POST', url: '/api/auth/logout-all', need: 'session', ends: true },
  { method: 'POST', url: '/api/auth/logout', need: 'authed', ends: true },
];

const trpc: Record<string, TrpcRow> = {
  'system.health': { need: 'public' },
  'system.config': { need: 'public' },
  'system.publicConfig': { need: 'public' },
  'system.heartbeat': { need: 'authed', sub: true, input: () => ({ intervalMs: 100 }) },
  'system.onSettingsChanged': { need: 'authed', sub: true, input: () => ({ lastEventId: '0' }) },
  'auth.login': { need: 'public', input: () => ADMIN },
  'auth.verify': { need: 'authed' },
  'auth.permissions': { need: 'authed' },
  'auth.createUser': { need: 'users:write', input: (x) => ({ username: uniq('tu', x), password: 'secret-pass' }) },
  'auth.mfaEnable': { need: 'session', input: ({ c }) => ({ type: 'totp', password: c.password }) },
  'auth.mfaVerify': { need: 'session', input: () => ({ code: '000000' }), ok: 400 },
  'auth.mfaDisable': { need: 'session', input: () => ({ code: '000000' }), ok: 400 },
  'settings.get': { need: 'config:read' },
  'settings.export': { need: 'config:read' },
  'settings.updateSystemConfig': { need: 'config:write', input: () => ({ mcpRouter: { title: 'matrix' } }) },
  'servers.list': { need: 'servers:read' },
  'servers.catalog': { need: 'servers:read', input: () => ({ query: 'git' }) },
  'servers.get': { need: 'servers:read', server: true, input: () => ({ name: 'everything' }) },
  'servers.create': { need: 'servers:write', input: (x) => ({ name: uniq('tremote', x), config: sse }) },
  'servers.update': { need: 'servers:write', input: () => ({ name: 'tmp', config: sse }) },
  'servers.remove': { need: 'servers:write', input: (x) => ({ name: doomed(x, 'tserver') }) },
  'servers.importBundle': { need: 'servers:write+admin', input: async (x) => ({ data: (await bundle(uniq('tbundle', x))).toString('base64') }) },
  'servers.toggle': { need: 'servers:write', input: () => ({ name: 'tmp', enabled: true }) },
  'servers.toggleItem': { need: 'tools:write', input: () => ({ kind: 'tools', server: 'everything', item: 'echo', enabled: true }) },
  'servers.describeItem': { need: 'tools:write', input: () => ({ kind: 'prompts', server: 'everything', item: 'simple-prompt', description: 'S' }) },
  'servers.resetItemDescription': { need: 'tools:write', input: () => ({ kind: 'prompts', server: 'everything', item: 'simple-prompt' }) },
  'servers.oauthCallback': { need: 'public', input: () => ({ code: 'c', state: 'unknown' }), ok: 404 },
  'servers.oauthClientMetadata': { need: 'public', ok: 200 },
  'servers.onStatus': { need: 'servers:read', sub: true, input: () => ({ lastEventId: '1' }) },
  'tools.callTool': { need: 'tools:execute', server: true, input: () => ({ server: 'everything', toolName: 'echo', arguments: { message: 'x' } }) },
  'tools.callOpen': { need: 'public', input: () => ({ server: 'everything', toolName: 'echo', arguments: { message: 'x' } }) },
  'tools.openapi': { need: 'public' },
  'tools.getPrompt': { need: 'prompts:execute', server: true, input: () => ({ server: 'everything', prompt: 'simple-prompt' }) },
  'groups.list': { need: 'groups:read' },
  'groups.get': { need: 'groups:read', input: () => ({ id: GROUP_ID }) },
  'groups.create': { need: 'groups:write', input: (x) => ({ name: uniq('tg', x) }) },
  'groups.update': { need: 'groups:write', input: () => ({ id: 'fixed', description: 't' }) },
  'groups.remove': { need: 'groups:write', input: (x) => ({ id: doomed(x, 'tgroup') }) },
  'groups.addServer': { need: 'groups:write', input: () => ({ id: 'fixed', serverName: 'everything' }) },
  'groups.removeServer': { need: 'groups:write', input: () => ({ id: 'fixed', serverName: 'tmp' }), ok: 404 },
  'groups.setServers': { need: 'groups:write', input: () => ({ id: 'fixed', servers: ['everything'] }) },
  'groups.serverConfigs': { need: 'groups:read', input: () => ({ id: 'fixed' }) },
  'groups.setSelection': { need: 'groups:write', input: () => ({ id: 'fixed', serverName: 'everything', kind: 'tools', selection: 'all' }) },
  'groups.setSelections': { need: 'groups:write', input: () => ({ id: 'fixed', serverName: 'everything', tools: 'all', prompts: 'all' }) },
  'groups.addUser': { need: 'users:write', input: () => ({ id: 'fixed', userId: 'viewer' }) },
  'users.list': { need: 'users:read' },
  'users.get': { need: 'users:read', input: () => ({ username: 'viewer' }) },
  'users.create': { need: 'users:write', input: (x) => ({ username: uniq('tu2', x), password: 'secret-pass' }) },
  'users.update': { need: 'users:write', input: () => ({ username: 'userWithout', email: 'y@example.com' }) },
  'users.remove': { need: 'users:write', input: (x) => ({ username: doomed(x, 'tuser') }) },
  'users.stats': { need: 'users:read' },
  'users.audit': { need: 'users:read', input: () => ({}) },
  'keys.create': { need: 'keys:write', input: (x) => ({ name: uniq('tk', x), permissions: keyPerms(x) }) },
  'keys.list': { need: 'keys:read' },
  'keys.revoke': { need: 'keys:write', input: () => ({ id: 'no-such-key' }), ok: 404 },
  'logs.list': { need: 'logs:read' },
  'logs.clear': { need: 'logs:write' },
  'logs.aggregate': { need: 'logs:read' },
  'logs.stream': { need: 'logs:read', sub: true },
  'monitoring.scrape': { need: 'monitoring:read' },
  'monitoring.metrics': { need: 'monitoring:read' },
  'monitoring.recordMetric': { need: 'monitoring:write', input: () => ({ name: 'tmatrix', value: 2 }) },
  'monitoring.health': { need: 'monitoring:read' },
  'monitoring.overview': { need: 'monitoring:read' },
  'monitoring.errors': { need: 'monitoring:read' },
  'monitoring.database': { need: 'monitoring:read' },
  'monitoring.slowQueries': { need: 'monitoring:read' },
  'monitoring.onCall': { need: 'tools:read', sub: true },
  'pins.changes': { need: 'tools:read' },
  'secrets.list': { need: 'authed' },
  'oidc.start': { need: 'public' },
  'oidc.callback': { need: 'public', input: () => ({ query: { code: 'c', state: 's' } }) },
  'oidc.exchange': { need: 'public', input: () => ({ ticket: 'not-a-ticket' }), ok: 401 },
  'secrets.set': { need: 'authed', input: () => ({ name: 'MATRIX_TOKEN', value: 'v' }) },
  'secrets.remove': { need: 'authed', input: () => ({ name: 'MATRIX_TOKEN' }) },
  'pins.approve': { need: 'config:write', input: () => ({ server: 'everything', tool: 'echo' }), ok: 404 },
  'pins.reject': { need: 'config:write', input: () => ({ server: 'everything', tool: 'echo' }), ok: 404 },
  'smart.status': { need: 'config:read' },
  'smart.search': { need: 'tools:read', input: () => ({ query: 'echo' }) },
  'smart.reindex': { need: 'config:write' },
  // Last: these end the caller's sessions.
  'auth.changePassword': { need: 'session', ends: true, input: ({ c }) => ({ currentPassword: c.password ?? 'x', newPassword: c.password ?? 'x-x-x-x' }) },
  'auth.logoutAll': { need: 'session', ends: true },
  'auth.logout': { need: 'authed', ends: true },
};

let hub: TestHub;
let callers: Caller[];
let relogin: (c: Caller) => Promise<void>;

test.before(async () => {
  ({ hub, callers, relogin } = await matrixHub());
  const admin = await hub.login();
  const post = (url: string, body: unknown) => hub.request('POST', url, { token: admin, body });
  for (const c of callers) {
    const x = { c, n: 0 };
    for (const kind of ['server', 'tserver']) await post('/api/servers', { name: doomed(x, kind), config: sse });
    for (const kind of ['group', 'tgroup']) await post('/api/groups', { name: doomed(x, kind) });
    for (const kind of ['user', 'tuser']) await post('/api/users', { username: doomed(x, kind), password: 'spare-pass' });
  }
});
test.after(() => hub.close());

test('the tables name every REST route and every tRPC procedure', () => {
  const routes = new Set(rest.map((r) => `${r.method} ${r.url}`));
  const missing = restRoutes.map((r) => `${r.method} ${r.url}`).filter((r) => !routes.has(r));
  assert.equal(missing, [], 'REST routes without a row');
  const procedures = Object.keys((appRouter as unknown as { _def: { procedures: Record<string, unknown> } })._def.procedures);
  assert.equal(procedures.filter((p) => !trpc[p]), [], 'procedures without a row');
  assert.equal(Object.keys(trpc).filter((p) => !procedures.includes(p)), [], 'rows without a procedure');
});

test('every REST route gives each kind of caller exactly the expected status', async () => {
  const failures: string[] = [];
  for (const row of rest) {
    for (const c of callers) {
      const x = { c, n: 0 };
      const url = row.path?.(x) ?? row.url;
      let status: number;
      let text: string;
      if (row.upload) {
        const form = new FormData();
        form.append('mcpbFile', new Blob([new Uint8Array(await row.upload(x))]), 'b.mcpb');
        const res = await fetch(hub.url + url, { method: 'POST', body: form, headers: restHeaders(c) });
        status = res.status;
        text = await res.text();
      } else if (url === '/api/logs/stream') {
        const ctrl = new AbortController();
        const res = await fetch(hub.url + url, { headers: restHeaders(c), signal: ctrl.signal });
        status = res.status;
        text = res.headers.get('content-type') ?? '';
        ctrl.abort();
      } else {
        const res = await hub.request(row.method, url, { headers: restHeaders(c), body: row.body?.(x) });
        status = res.status;
        text = JSON.stringify(res.body);
      }
      const want = expected(c, row);
      if (status !== want) failures.push(`${row.method} ${url} as ${c.name}: got ${status}, want ${want} (${text.slice(0, 140)})`);
      if (row.ends) await relogin(c);
    }
  }
  assert.equal(failures, []);
});

function wsClient(c: Caller) {
  const params = c.kind === 'key' ? { apiKey: c.credential } : c.credential ? { token: c.credential } : {};
  const ws = createWSClient({ url: hub.url.replace(/^http/, 'ws') + '/trpc', WebSocket: WebSocket as never, connectionParams: params, retryDelayMs: () => 100 });
  return { client: createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] }), close: () => ws.close() };
}

const statusOf = (err: unknown) => (err instanceof TRPCClientError ? ((err.data as { httpStatus?: number } | undefined)?.httpStatus ?? 0) : -1);

/**
 * A subscription's first answer: its first event (200) or its error's status.
 * Quiet counts as open (200): after 400 ms, or 3 s when a refusal is expected
 * (a loaded machine must not turn a slow refusal into a pass or a failure).
 */
function firstOf(client: any, path: string, input: unknown, want: number): Promise<number> {
  return new Promise((resolve) => {
    let sub: { unsubscribe(): void } | undefined;
    const done = (s: number) => {
      clearTimeout(timer);
      setImmediate(() => sub?.unsubscribe());
      resolve(s);
    };
    const timer = setTimeout(() => done(200), want === 200 ? 400 : 3000);
    const [a, b] = path.split('.');
    sub = client[a!][b!].subscribe(input, { onData: () => done(200), onError: (err: unknown) => done(statusOf(err)) });
  });
}

test('every tRPC procedure and subscription over the WebSocket gives each kind of caller the expected answer', async () => {
  const failures: string[] = [];
  const procedures = (appRouter as any)._def.procedures;
  for (const c of callers) {
    let ws = wsClient(c);
    for (const [path, row] of Object.entries(trpc)) {
      const x = { c, n: 1 };
      const input = await row.input?.(x);
      let status: number;
      if (row.sub) status = await firstOf(ws.client, path, input, expected(c, row));
      else {
        const [a, b] = path.split('.');
        const proc = (ws.client as any)[a!][b!];
        status = await proc[procedures[path]._def.type === 'query' ? 'query' : 'mutate'](input).then(() => 200, statusOf);
      }
      const want = expected(c, row);
      if (status !== want) failures.push(`${path} as ${c.name}: got ${status}, want ${want}`);
      if (row.ends) {
        ws.close();
        await relogin(c);
        ws = wsClient(c);
      }
    }
    ws.close();
  }
  assert.equal(failures, []);
});

test('no answer to any caller holds a password, a hash, a key, a TOTP secret or the signing secret', async () => {
  const admin = await hub.login();
  const bodies: string[] = [];
  for (const c of callers) {
    for (const url of ['/api/settings', '/api/mcp-settings/export', '/api/users', '/api/auth/api-keys', '/api/servers', '/api/groups', '/api/auth/verify', '/api/audit/logs', '/api/logs']) {
      bodies.push(JSON.stringify((await hub.request('GET', url, { headers: restHeaders(c) })).body));
    }
  }
  bodies.push(JSON.stringify((await hub.request('GET', '/api/settings', { token: admin })).body));
  const file = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  const forbidden = [
    ADMIN.password,
    'viewer-pass',
    'user-pass',
    'manager-pass',
    ...file.users.map((u: { password: string }) => u.password),
    ...file.users.flatMap((u: { mfa?: { pendingSecret?: string } }) => (u.mfa?.pendingSecret ? [u.mfa.pendingSecret] : [])),
    ...(file.apiKeys ?? []).map((k: { hash: string }) => k.hash),
    ...callers.filter((c) => c.kind === 'key' || c.kind === 'bearer').map((c) => c.credential!),
    'matrix-secret-1234567890',
  ];
  const all = bodies.join('\n');
  for (const secret of forbidden) assert.not.ok(all.includes(secret), `an answer contains ${secret.slice(0, 12)}…`);
  assert.not.match(all, /\$argon2|\$2[aby]\$/);
});

test.run();
