/**
 * Every endpoint against every kind of caller, with the exact outcome each
 * must get; then a scan of every response for secrets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, startHub, type TestHub } from '../helpers/hub';
import { agent, stdioEverything, waitFor } from '../helpers/mcp';

type Caller = { name: string; headers: Record<string, string>; perms: Set<string> | null; sees: boolean };
type Need = 'public' | 'authed' | `${string}:${string}`;
type Endpoint = { method: string; url: () => string; body?: () => unknown; need: Need; visibility?: boolean; ok?: number };

let hub: TestHub;
const callers: Caller[] = [];
const bodies: string[] = [];
let n = 0;
const uniq = (p: string) => `${p}${++n}`;
// Things a destructive endpoint can delete, one per call, made in before().
const spares: Record<string, string[]> = { server: [], group: [], user: [] };
const spare = (kind: string) => spares[kind]!.shift() ?? 'none-left';

const endpoints: Endpoint[] = [
  { method: 'GET', url: () => '/health', need: 'public' },
  { method: 'GET', url: () => '/config', need: 'public' },
  { method: 'GET', url: () => '/public-config', need: 'public' },
  { method: 'GET', url: () => '/api/auth/verify', need: 'authed' },
  { method: 'GET', url: () => '/api/auth/permissions', need: 'authed' },
  { method: 'GET', url: () => '/api/settings', need: 'config:read' },
  { method: 'PUT', url: () => '/api/system-config', body: () => ({ mcpRouter: { title: 'matrix' } }), need: 'config:write' },
  { method: 'GET', url: () => '/api/mcp-settings/export', need: 'config:read' },
  { method: 'GET', url: () => '/api/servers', need: 'servers:read' },
  { method: 'GET', url: () => '/api/servers/everything', need: 'servers:read', visibility: true },
  { method: 'POST', url: () => '/api/servers', body: () => ({ name: uniq('remote'), config: { type: 'sse', url: 'http://127.0.0.1:9/sse' } }), need: 'servers:write' },
  { method: 'POST', url: () => '/api/servers/everything/tools/echo/toggle', body: () => ({ enabled: true }), need: 'tools:write' },
  { method: 'PUT', url: () => '/api/servers/everything/tools/echo/description', body: () => ({ description: 'Echo' }), need: 'tools:write' },
  { method: 'POST', url: () => '/api/tools/call/everything', body: () => ({ toolName: 'echo', arguments: { message: 'x' } }), need: 'tools:execute', visibility: true },
  { method: 'GET', url: () => '/api/tools/everything/echo?message=x', need: 'public' },
  { method: 'PUT', url: () => '/api/servers/tmp', body: () => ({ config: { type: 'sse', url: 'http://127.0.0.1:9/sse' } }), need: 'servers:write' },
  { method: 'POST', url: () => '/api/servers/tmp/toggle', body: () => ({ enabled: false }), need: 'servers:write' },
  { method: 'DELETE', url: () => `/api/servers/${spare('server')}`, need: 'servers:write' },
  { method: 'DELETE', url: () => '/api/servers/everything/tools/echo/description', need: 'tools:write' },
  { method: 'POST', url: () => '/api/servers/everything/prompts/simple-prompt/toggle', body: () => ({ enabled: true }), need: 'tools:write' },
  { method: 'PUT', url: () => '/api/servers/everything/prompts/simple-prompt/description', body: () => ({ description: 'Simple' }), need: 'tools:write' },
  { method: 'POST', url: () => '/api/mcp/everything/prompts/simple-prompt', body: () => ({ arguments: {} }), need: 'prompts:execute', visibility: true },
  { method: 'POST', url: () => '/api/tools/everything/echo', body: () => ({ message: 'x' }), need: 'public' },
  { method: 'GET', url: () => '/api/openapi.json', need: 'public' },
  { method: 'GET', url: () => '/api/groups', need: 'groups:read' },
  { method: 'GET', url: () => '/api/groups/fixed', need: 'groups:read' },
  { method: 'PUT', url: () => '/api/groups/fixed', body: () => ({ description: 'd' }), need: 'groups:write' },
  { method: 'POST', url: () => '/api/groups/fixed/servers', body: () => ({ serverName: 'everything' }), need: 'groups:write' },
  { method: 'PUT', url: () => '/api/groups/fixed/servers/batch', body: () => ({ servers: [{ name: 'everything', tools: 'all' }] }), need: 'groups:write' },
  { method: 'GET', url: () => '/api/groups/fixed/server-configs', need: 'groups:read' },
  { method: 'PUT', url: () => '/api/groups/fixed/server-configs/everything/tools', body: () => ({ tools: ['echo'] }), need: 'groups:write' },
  { method: 'DELETE', url: () => `/api/groups/${spare('group')}`, need: 'groups:write' },
  { method: 'POST', url: () => '/api/groups/fixed/users', body: () => ({ userId: 'viewer' }), need: 'users:write' },
  { method: 'PUT', url: () => '/api/users/userWithout', body: () => ({ email: 'x@example.com' }), need: 'users:write' },
  { method: 'DELETE', url: () => `/api/users/${spare('user')}`, need: 'users:write' },
  { method: 'POST', url: () => '/api/auth/users', body: () => ({ username: uniq('au'), password: 'secret-pass' }), need: 'users:write' },
  { method: 'POST', url: () => '/api/groups', body: () => ({ name: uniq('group') }), need: 'groups:write' },
  { method: 'GET', url: () => '/api/users', need: 'users:read' },
  { method: 'GET', url: () => '/api/users/admin', need: 'users:read' },
  { method: 'POST', url: () => '/api/users', body: () => ({ username: uniq('u'), password: 'secret-pass' }), need: 'users:write' },
  { method: 'GET', url: () => '/api/users-stats', need: 'users:read' },
  { method: 'GET', url: () => '/api/audit/logs', need: 'users:read' },
  { method: 'POST', url: () => '/api/auth/api-keys', body: () => ({ name: uniq('k'), permissions: ['servers:read'] }), need: 'keys:write' },
  { method: 'GET', url: () => '/api/auth/api-keys', need: 'keys:read' },
];

function expected(c: Caller, e: Endpoint): number {
  if (e.need === 'public') return 200;
  if (c.perms === null) return 401;
  if (e.need !== 'authed' && !c.perms.has(e.need)) return 403;
  if (e.visibility && !c.sees) return 404;
  return e.ok ?? 200;
}

test.before(async () => {
  hub = await startHub({ env: { JWT_SECRET: 'matrix-secret-1234567890' } });
  const admin = await hub.login();
  const post = (url: string, body: unknown) => hub.request('POST', url, { token: admin, body });
  await post('/api/servers', { name: 'everything', config: stdioEverything() });
  await waitFor(async () => (await hub.request('GET', '/api/servers/everything', { token: admin })).body.data.status === 'connected', 15_000, 'connected');
  for (const [username, role, servers] of [['viewer', 'viewer', ['everything']], ['userWith', 'user', ['everything']], ['userWithout', 'user', []], ['manager', 'manager', []]] as const) {
    await post('/api/users', { username, password: `${username}-pass`, role, servers });
  }
  await post('/api/servers', { name: 'tmp', config: { type: 'sse', url: 'http://127.0.0.1:9/sse' } });
  await post('/api/groups', { name: 'fixed', servers: ['everything'], visibility: 'public' });
  for (let i = 0; i < 40; i++) {
    const name = `spare${i}`;
    await post('/api/servers', { name, config: { type: 'sse', url: 'http://127.0.0.1:9/sse' } });
    await post('/api/groups', { name: `g-${name}` });
    await post('/api/users', { username: `u-${name}`, password: 'spare-pass' });
    spares.server!.push(name);
    spares.group!.push(`g-${name}`);
    spares.user!.push(`u-${name}`);
  }
  const tokenOf = (u: string) => hub.login(u, `${u}-pass`);
  const permsOf = async (t: string) => new Set<string>((await hub.request('GET', '/api/auth/permissions', { token: t })).body.data.permissions);
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('admin').setJti('e').setExpirationTime(Math.floor(Date.now() / 1000) - 5).sign(new TextEncoder().encode('matrix-secret-1234567890'));
  callers.push({ name: 'no token', headers: {}, perms: null, sees: false });
  callers.push({ name: 'bad token', headers: bearer('not-a-token'), perms: null, sees: false });
  callers.push({ name: 'expired token', headers: bearer(expired), perms: null, sees: false });
  for (const [u, sees] of [['viewer', true], ['userWith', true], ['userWithout', false], ['manager', true]] as const) {
    const t = await tokenOf(u);
    callers.push({ name: u, headers: bearer(t), perms: await permsOf(t), sees });
  }
  callers.push({ name: 'admin', headers: bearer(admin), perms: await permsOf(admin), sees: true });
  const keyWith = (await post('/api/auth/api-keys', { name: 'with', permissions: ['servers:read', 'servers:write', 'tools:execute', 'tools:read', 'config:read'] })).body.data.key;
  const keyWithout = (await post('/api/auth/api-keys', { name: 'without', permissions: ['servers:read'] })).body.data.key;
  callers.push({ name: 'API key with permission', headers: { 'x-api-key': keyWith }, perms: new Set(['servers:read', 'servers:write', 'tools:execute', 'tools:read', 'config:read']), sees: true });
  callers.push({ name: 'API key without permission', headers: { 'x-api-key': keyWithout }, perms: new Set(['servers:read']), sees: true });
});
test.after(() => hub.close());

test('every REST endpoint gives each kind of caller exactly the expected status', async () => {
  const failures: string[] = [];
  for (const e of endpoints) {
    for (const c of callers) {
      const res = await hub.request(e.method, e.url(), { headers: c.headers, body: e.body?.() });
      bodies.push(JSON.stringify(res.body));
      const want = expected(c, e);
      if (res.status !== want) failures.push(`${e.method} ${e.url()} as ${c.name}: got ${res.status}, want ${want} (${JSON.stringify(res.body).slice(0, 120)})`);
      if (res.status === 401) {
        if (typeof res.body.error !== 'string') failures.push(`${e.method} ${e.url()} as ${c.name}: 401 without an error string`);
      }
    }
  }
  assert.equal(failures, []);
});

test('every MCP route gives each kind of caller exactly the expected outcome, at call time', async () => {
  const failures: string[] = [];
  for (const c of callers) {
    const token = c.headers.authorization?.slice(7) ?? c.headers['x-api-key'];
    let client;
    try {
      client = await agent(hub.url + '/api/mcp', { token });
    } catch (err) {
      if (c.perms?.has('tools:execute')) failures.push(`${c.name}: could not connect (${String(err).slice(0, 100)})`);
      continue;
    }
    if (!c.perms?.has('tools:execute')) failures.push(`${c.name}: connected without tools:execute`);
    const listed = (await client.listTools()).tools.some((t) => t.name === 'everything-echo');
    if (listed !== c.sees) failures.push(`${c.name}: listed=${listed}, want ${c.sees}`);
    const canCall = c.sees && c.perms!.has('tools:execute');
    try {
      const r = await client.callTool({ name: 'everything-echo', arguments: { message: 'm' } });
      bodies.push(JSON.stringify(r));
      if (!canCall) failures.push(`${c.name}: call succeeded but should be refused`);
    } catch (err) {
      if (canCall) failures.push(`${c.name}: call refused: ${String(err).slice(0, 100)}`);
    }
    await client.close();
  }
  assert.equal(failures, []);
});

test('no response of any endpoint contains a password, a password hash, a key hash or a TOTP secret', async () => {
  const admin = await hub.login();
  const en = await hub.request('POST', '/api/auth/mfa/enable', { token: admin, body: { type: 'totp', password: ADMIN.password } });
  const totpSecret = en.body.data.secret as string;
  await hub.request('POST', '/api/auth/mfa/verify', { token: admin, body: { code: new TOTP({ secret: Secret.fromBase32(totpSecret) }).generate() } });
  for (const url of ['/api/settings', '/api/mcp-settings/export', '/api/users', '/api/users/admin', '/api/auth/api-keys', '/api/servers', '/api/groups', '/api/auth/verify', '/api/audit/logs']) {
    bodies.push(JSON.stringify((await hub.request('GET', url, { token: admin })).body));
  }
  const file = JSON.parse(await readFile(path.join(hub.dir, 'mcp_settings.json'), 'utf8'));
  const forbidden = [
    ADMIN.password,
    'viewer-pass', 'userWith-pass', 'manager-pass',
    ...file.users.map((u: { password: string }) => u.password),
    ...(file.apiKeys ?? []).map((k: { hash: string }) => k.hash),
    totpSecret,
    'matrix-secret-1234567890',
  ];
  const all = bodies.join('\n');
  for (const secret of forbidden) assert.not.ok(all.includes(secret), `a response contains ${secret.slice(0, 12)}…`);
  assert.not.match(all, /\$argon2|\$2[aby]\$/);
});

test.run();
