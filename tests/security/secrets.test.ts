/**
 * Hub's own secrets never leave it: `${VAR}` never reaches Hub's variables,
 * only admins (or HUB_ALLOWED_ENV_VARS) may reference the environment,
 * secrets are masked for everyone but admins, and upstream text shown to
 * callers is redacted and cut short.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ADMIN, startHub, tempDir, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';

const JWT_SECRET = 'jwt-secret-never-leaves-hub-123';
const env = { JWT_SECRET, UPSTREAM_TOKEN: 'upstream-token-value', ALLOWED_REGION: 'eu-west', HOST_SECRET: 'host-secret-value' };
let hub: TestHub;
let admin: string;
let manager: string;
let viewer: string;
let sink: http.Server;
let sinkUrl: string;
const seen: string[] = [];

const stdio = (extra: object = {}) => ({ type: 'stdio', command: process.execPath, args: [fixture('crashy.mjs')], ...extra });
const envOf = async (server: string, name: string) => {
  const res = await hub.request('POST', `/api/tools/call/${server}`, { token: admin, body: { toolName: 'env', arguments: { name } } });
  return res.body.data?.content?.[0]?.text as string;
};

test.before(async () => {
  // An upstream that records what reaches it and fails with a long body full of secrets.
  sink = http.createServer((req, res) => {
    seen.push(`${req.url} ${JSON.stringify(req.headers)}`);
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`boom ${'x'.repeat(5000)} ${ADMIN.password} Bearer abcdefghijklmnop ${JWT_SECRET}`);
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
  const dir = await tempDir();
  // A settings file edited by hand that names Hub's own secret: it must still expand to nothing.
  await writeFile(path.join(dir, 'mcp_settings.json'), JSON.stringify({ mcpServers: { handmade: stdio({ env: { LEAK: '${JWT_SECRET}', PASS: '${AUTH_PASSWORD}' } }) } }));
  hub = await startHub({ dir, env: { ...env, HUB_ALLOWED_ENV_VARS: 'UPSTREAM_TOKEN,ALLOWED_*' } });
  admin = await hub.login();
  for (const [username, role] of [['mgr', 'manager'], ['vw', 'viewer']]) {
    await hub.request('POST', '/api/users', { token: admin, body: { username, password: `${username}-pass-1`, role, servers: ['handmade'] } });
  }
  manager = await hub.login('mgr', 'mgr-pass-1');
  viewer = await hub.login('vw', 'vw-pass-1');
  await waitFor(async () => (await hub.request('GET', '/api/servers/handmade', { token: admin })).body.data.status === 'connected', 15_000, 'handmade connected');
});
test.after(async () => {
  await hub.close();
  sink.close();
});

test("Hub's own variables never expand, even from a settings file edited by hand", async () => {
  assert.is(await envOf('handmade', 'LEAK'), '');
  assert.is(await envOf('handmade', 'PASS'), '');
});

test("nobody may write a reference to Hub's own variables; a manager's attempt shows no secret anywhere", async () => {
  for (const token of [admin, manager]) {
    const url = await hub.request('POST', '/api/servers', { token, body: { name: 'rebound', config: { type: 'streamable-http', url: `${hub.url}/api/x/\${JWT_SECRET}` } } });
    assert.is(url.status, 400);
    assert.match(url.body.error, /^config\.url: .*JWT_SECRET.*Hub's own/);
    const header = await hub.request('POST', '/api/servers', { token, body: { name: 'rebound', config: { type: 'sse', url: sinkUrl, headers: { authorization: '${AUTH_PASSWORD}' } } } });
    assert.is(header.status, 400);
  }
  await new Promise((r) => setTimeout(r, 300));
  const everything = JSON.stringify([(await hub.request('GET', '/api/servers', { token: manager })).body, (await hub.request('GET', '/api/logs', { token: admin })).body, seen]);
  assert.not.ok(everything.includes(JWT_SECRET));
  assert.not.ok(everything.includes(ADMIN.password));
});

test('only admins reference other variables, unless HUB_ALLOWED_ENV_VARS lists them', async () => {
  const denied = await hub.request('POST', '/api/servers', { token: manager, body: { name: 'm1', config: { type: 'sse', url: sinkUrl, headers: { 'x-secret': '${HOST_SECRET}' } } } });
  assert.is(denied.status, 403);
  assert.match(denied.body.error, /^config\.headers\.x-secret: only admins/);
  const allowed = await hub.request('POST', '/api/servers', { token: manager, body: { name: 'm2', config: { type: 'sse', url: `${sinkUrl}/\${ALLOWED_REGION}` } } });
  assert.is(allowed.status, 200, JSON.stringify(allowed.body));
  await waitFor(() => seen.some((s) => s.startsWith('/eu-west')), 5000, 'the allowed variable expanded');
  // An admin may write any other name, but outside the allow-list it expands to nothing.
  const byAdmin = await hub.request('POST', '/api/servers', { token: admin, body: { name: 'a1', config: stdio({ env: { T: '${UPSTREAM_TOKEN}', H: '${HOST_SECRET}' } }) } });
  assert.is(byAdmin.status, 200);
  await waitFor(async () => (await hub.request('GET', '/api/servers/a1', { token: admin })).body.data.status === 'connected', 15_000, 'a1 connected');
  assert.is(await envOf('a1', 'T'), 'upstream-token-value');
  assert.is(await envOf('a1', 'H'), '');
});

test('secret values are masked for everyone but admins, and a masked value sent back keeps the stored one', async () => {
  await hub.request('POST', '/api/servers', { token: admin, body: { name: 'keyed', config: { type: 'sse', url: sinkUrl, headers: { authorization: 'Bearer stored-header-secret' }, env: { K: 'stored-env-secret' }, oauth: { clientId: 'c', clientSecret: 'stored-client-secret' } } } });
  await hub.request('PUT', '/api/users/vw', { token: admin, body: { servers: ['handmade', 'keyed'] } });
  await hub.request('PUT', '/api/system-config', { token: admin, body: { smartRouting: { providerApiKey: 'provider-key-secret' }, session: { secret: 'session-secret-0123456789' } } });
  const leaks = ['stored-header-secret', 'stored-env-secret', 'stored-client-secret', 'provider-key-secret', 'session-secret-0123456789'];
  for (const token of [manager, viewer]) {
    const bodies = JSON.stringify([
      (await hub.request('GET', '/api/servers', { token })).body,
      (await hub.request('GET', '/api/servers/keyed', { token })).body,
      (await hub.request('GET', '/api/settings', { token })).body,
      (await hub.request('GET', '/api/mcp-settings/export', { token })).body,
    ]);
    for (const secret of leaks) assert.not.ok(bodies.includes(secret), `a non-admin sees ${secret}`);
  }
  const view = (await hub.request('GET', '/api/servers/keyed', { token: manager })).body.data.config;
  assert.is(view.headers.authorization, '********');
  assert.is((await hub.request('GET', '/api/servers/keyed', { token: admin })).body.data.config.headers.authorization, 'Bearer stored-header-secret');
  // The admin's export keeps secrets only when asked.
  assert.not.ok(JSON.stringify((await hub.request('GET', '/api/mcp-settings/export', { token: admin })).body).includes('provider-key-secret'));
  assert.ok(JSON.stringify((await hub.request('GET', '/api/mcp-settings/export?includeSecrets=true', { token: admin })).body).includes('provider-key-secret'));
  assert.is((await hub.request('GET', '/api/mcp-settings/export?includeSecrets=true', { token: manager })).status, 403);
  // A manager edits the server as shown: the masked values keep what was stored.
  const edit = await hub.request('PUT', '/api/servers/keyed', { token: manager, body: { config: { ...view, description: 'edited' } } });
  assert.is(edit.status, 200, JSON.stringify(edit.body));
  const stored = (await hub.request('GET', '/api/servers/keyed', { token: admin })).body.data.config;
  assert.is(stored.headers.authorization, 'Bearer stored-header-secret');
  assert.is(stored.env.K, 'stored-env-secret');
  // ...but pointing it elsewhere would send the stored secret to a new address.
  const moved = await hub.request('PUT', '/api/servers/keyed', { token: manager, body: { config: { ...view, url: 'http://127.0.0.1:9/elsewhere' } } });
  assert.is(moved.status, 403);
  assert.match(moved.body.error, /re-enter/);
});

test('an upstream error shown to callers is cut short and holds no secret', async () => {
  await hub.request('POST', '/api/servers', { token: admin, body: { name: 'noisy', config: { type: 'streamable-http', url: sinkUrl } } });
  await hub.request('PUT', '/api/users/vw', { token: admin, body: { servers: ['noisy'] } });
  const error = await waitFor(async () => (await hub.request('GET', '/api/servers/noisy', { token: viewer })).body.data.error as string, 10_000, 'an error');
  assert.ok(error.length < 400, `error is ${error.length} characters`);
  assert.not.ok(error.includes(ADMIN.password));
  assert.not.ok(error.includes(JWT_SECRET));
  assert.not.ok(error.includes('abcdefghijklmnop'));
});

test('the OpenAPI document names install.baseUrl or the listen address, never the caller\'s Host', async () => {
  const doc = await new Promise<string>((resolve) => {
    const u = new URL(hub.url);
    http.get({ host: u.hostname, port: u.port, path: '/api/openapi.json', headers: { host: 'localhost', 'x-forwarded-host': 'evil.example' } }, (res) => {
      let t = '';
      res.on('data', (d) => (t += d));
      res.on('end', () => resolve(t));
    });
  });
  assert.is(JSON.parse(doc).servers[0].url, hub.url);
  await hub.request('PUT', '/api/system-config', { token: admin, body: { install: { baseUrl: 'https://hub.example.com/' } } });
  assert.is((await hub.request('GET', '/api/openapi.json')).body.servers[0].url, 'https://hub.example.com');
});

test.run();
