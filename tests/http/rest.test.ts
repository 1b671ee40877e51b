import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { startHub, type TestHub } from '../helpers/hub';

let hub: TestHub;
let token: string;
test.before(async () => {
  hub = await startHub();
  token = await hub.login();
});
test.after(() => hub.close());

test('health answers without envelope or auth', async () => {
  const res = await hub.request('GET', '/health');
  assert.is(res.status, 200);
  assert.is(res.body.status, 'ok');
  assert.ok(!Number.isNaN(Date.parse(res.body.timestamp)));
  assert.type(res.body.uptime, 'number');
  assert.is(res.body.success, undefined);
});

test('config and public-config use the envelope and need no token', async () => {
  const config = await hub.request('GET', '/config');
  assert.is(config.status, 200);
  assert.equal(Object.keys(config.body.data).sort(), ['basePath', 'name', 'version']);
  const pub = await hub.request('GET', '/public-config');
  assert.is(pub.body.success, true);
  assert.is(pub.body.data.skipAuth, false);
  assert.type(pub.body.data.permissions, 'object');
});

test('login returns a token and the user without any password', async () => {
  const res = await hub.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'admin-pass-123' } });
  assert.is(res.status, 200);
  assert.is(res.body.success, true);
  assert.type(res.body.token, 'string');
  assert.is(res.body.user.username, 'admin');
  assert.is(res.body.user.role, 'admin');
  assert.is(res.body.data.token, res.body.token);
  assert.not.match(JSON.stringify(res.body), /password"|argon2/);
});

test('a wrong password is a 401 with an error string', async () => {
  const res = await hub.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'wrong-one' } });
  assert.is(res.status, 401);
  assert.is(res.body.success, false);
  assert.type(res.body.error, 'string');
});

test('a protected route without a token is a 401 naming the missing token', async () => {
  const res = await hub.request('GET', '/api/settings');
  assert.is(res.status, 401);
  assert.match(res.body.error, /token/i);
});

test('a bad or malformed token is a 401', async () => {
  const bad = await hub.request('GET', '/api/settings', { token: 'not.a.jwt' });
  assert.is(bad.status, 401);
  assert.match(bad.body.error, /invalid/i);
  const basic = await hub.request('GET', '/api/settings', { headers: { authorization: 'Basic abc' } });
  assert.is(basic.status, 401);
  assert.match(basic.body.error, /Bearer/);
});

test('verify and permissions describe the caller', async () => {
  const verify = await hub.request('GET', '/api/auth/verify', { token });
  assert.is(verify.status, 200);
  assert.is(verify.body.data.user.username, 'admin');
  const perms = await hub.request('GET', '/api/auth/permissions', { token });
  assert.ok(perms.body.data.permissions.includes('servers:write'));
  assert.ok(perms.body.data.permissions.every((p: string) => /^[a-z]+:(read|write|execute)$/.test(p)));
});

test('settings dump has servers, groups and systemConfig and no password hash', async () => {
  const res = await hub.request('GET', '/api/settings', { token });
  assert.is(res.status, 200);
  for (const key of ['servers', 'groups', 'systemConfig', 'mcpServers']) assert.ok(key in res.body.data, key);
  assert.not.match(JSON.stringify(res.body), /argon2|\$2[aby]\$/);
});

test('system-config takes nested sections and keeps what it was not given', async () => {
  const a = await hub.request('PUT', '/api/system-config', { token, body: { routing: { skipAuth: false, enableGlobalRoute: false } } });
  assert.is(a.status, 200);
  assert.is(a.body.success, true);
  await hub.request('PUT', '/api/system-config', { token, body: { install: { pythonIndexUrl: 'https://pypi.example.org/simple' } } });
  const s = await hub.request('GET', '/api/settings', { token });
  assert.is(s.body.data.systemConfig.routing.enableGlobalRoute, false);
  assert.is(s.body.data.systemConfig.install.pythonIndexUrl, 'https://pypi.example.org/simple');
  const file = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  assert.is(file.systemConfig.routing.enableGlobalRoute, false);
});

test('system-config takes the flat form', async () => {
  const res = await hub.request('PUT', '/api/system-config', {
    token,
    body: { providerApiKey: 'sk-1', providerApiBaseUrl: 'https://api.example.com/v1', modelName: 'm', temperature: 0.5, maxTokens: 100 },
  });
  assert.is(res.status, 200);
  assert.is(res.body.data.smartRouting.providerApiKey, 'sk-1');
  assert.is(res.body.data.llm.maxTokens, 100);
});

test('wrong types are a 400 naming the field', async () => {
  const res = await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableBearerAuth: 'yes' } } });
  assert.is(res.status, 400);
  assert.is(res.body.success, false);
  assert.match(res.body.error, /routing\.enableBearerAuth/);
  assert.is(res.body.field, 'routing.enableBearerAuth');
});

test('unknown fields are a 400 naming the field', async () => {
  const res = await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableGlobalRoot: true } } });
  assert.is(res.status, 400);
  assert.match(res.body.error, /routing\.enableGlobalRoot/);
  const top = await hub.request('PUT', '/api/system-config', { token, body: { nonsense: 1 } });
  assert.is(top.status, 400);
  assert.match(top.body.error, /nonsense/);
});

test('a bad URL in install is a 400 naming the field', async () => {
  const res = await hub.request('PUT', '/api/system-config', { token, body: { install: { jsPackageRegistry: 'not a url' } } });
  assert.is(res.status, 400);
  assert.match(res.body.error, /install\.jsPackageRegistry/);
});

test('bad JSON is a 400, not a 500', async () => {
  const res = await hub.request('PUT', '/api/system-config', { token, body: '{"routing": ' });
  assert.is(res.status, 400);
  assert.is(res.body.success, false);
  assert.match(res.body.error, /JSON/);
});

test('a JSON array or an empty object body is a 400', async () => {
  const arr = await hub.request('PUT', '/api/system-config', { token, body: [1, 2] });
  assert.is(arr.status, 400);
  assert.match(arr.body.error, /body/);
  const empty = await hub.request('PUT', '/api/system-config', { token, body: {} });
  assert.is(empty.status, 400);
});

test('a too-large body is a 413', async () => {
  const res = await hub.request('PUT', '/api/system-config', { token, body: { mcpRouter: { title: 'x'.repeat(2 * 1024 * 1024) } } });
  assert.is(res.status, 413);
  assert.is(res.body.success, false);
});

test('proto pollution in a body is refused', async () => {
  const res = await hub.request('PUT', '/api/system-config', { token, body: '{"__proto__": {"x": 1}}' });
  assert.is(res.status, 400);
  assert.is(({} as Record<string, unknown>).x, undefined);
});

test('an unknown route is a 404 with the envelope', async () => {
  const res = await hub.request('GET', '/api/does-not-exist');
  assert.is(res.status, 404);
  assert.is(res.body.success, false);
  const post = await hub.request('POST', '/nowhere', { body: {} });
  assert.is(post.status, 404);
});

test('export downloads the settings file without secrets', async () => {
  const res = await fetch(hub.url + '/api/mcp-settings/export', { headers: { authorization: `Bearer ${token}` } });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="mcp_settings.json"/);
  const body = await res.json();
  assert.ok('mcpServers' in body && 'systemConfig' in body);
  assert.is(body.users[0].username, 'admin');
  assert.is(body.users[0].password, undefined);
  const anon = await hub.request('GET', '/api/mcp-settings/export');
  assert.is(anon.status, 401);
});

test('logout ends the session: the token no longer works', async () => {
  const t = await hub.login();
  const out = await hub.request('POST', '/api/auth/logout', { token: t });
  assert.is(out.status, 200);
  assert.is(out.body.success, true);
  assert.type(out.body.message, 'string');
  const after = await hub.request('GET', '/api/auth/verify', { token: t });
  assert.is(after.status, 401);
});

test.run();
