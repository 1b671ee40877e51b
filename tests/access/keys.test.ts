import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startHub, tempDir, type TestHub } from '../helpers/hub';
import { agent, fixture, stdioEverything, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const withKey = (method: string, url: string, key: string, body?: unknown) => hub.request(method, url, { headers: { 'x-api-key': key }, body });

test.before(async () => {
  const dir = await tempDir();
  // A settings file as MCPHub writes it: a legacy bearerAuthKey and multi-key bearerKeys.
  await writeFile(
    path.join(dir, 'mcp_settings.json'),
    JSON.stringify({
      mcpServers: {
        everything: stdioEverything(),
        crashy: { command: process.execPath, args: [fixture('crashy.mjs')] },
      },
      groups: [{ id: 'g1', name: 'only-crashy', servers: ['crashy'] }],
      systemConfig: { routing: { enableBearerAuth: true, bearerAuthKey: 'legacy-secret-key' } },
      bearerKeys: [
        { id: 'k1', name: 'servers-key', token: 'mcphub-servers-token', enabled: true, accessType: 'servers', allowedServers: ['everything'] },
        { id: 'k2', name: 'group-key', token: 'mcphub-group-token', enabled: true, accessType: 'groups', allowedGroups: ['only-crashy'] },
        { id: 'k3', name: 'off', token: 'mcphub-disabled-token', enabled: false, accessType: 'all' },
      ],
    }),
  );
  hub = await startHub({ dir });
  token = await hub.login();
  await waitFor(async () => (await hub.request('GET', '/api/servers', { token })).body.data.every((s: any) => s.status === 'connected'), 15_000, 'connected');
});
test.after(() => hub.close());

test('an API key is shown once, stored only as a hash, and limited to its permissions', async () => {
  const created = await hub.request('POST', '/api/auth/api-keys', { token, body: { name: 'reader', permissions: ['servers:read'] } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const key = created.body.data.key as string;
  assert.match(key, /^hub_/);
  const file = await readFile(hub.settingsPath, 'utf8');
  assert.not.ok(file.includes(key), 'the key itself is not stored');
  const listed = await hub.request('GET', '/api/auth/api-keys', { token });
  assert.ok(listed.body.data.some((k: any) => k.name === 'reader' && !('key' in k) && !('hash' in k)));
  assert.is((await withKey('GET', '/api/servers', key)).status, 200);
  const write = await withKey('POST', '/api/servers', key, { name: 'x', config: { type: 'sse', url: 'http://127.0.0.1:9/sse' } });
  assert.is(write.status, 403);
  assert.is((await withKey('GET', '/api/servers', 'hub_wrong')).status, 401);
});

test('a key cannot hold more than its creator, nor expire in the past', async () => {
  await hub.request('POST', '/api/users', { token, body: { username: 'viewer1', password: 'viewer-pass', role: 'viewer' } });
  const vt = await hub.login('viewer1', 'viewer-pass');
  const res = await hub.request('POST', '/api/auth/api-keys', { token: vt, body: { name: 'k', permissions: ['servers:write'] } });
  assert.is(res.status, 403);
  const past = await hub.request('POST', '/api/auth/api-keys', { token, body: { name: 'old', permissions: ['servers:read'], expiresAt: '2001-01-01T00:00:00Z' } });
  assert.is(past.status, 400);
  assert.match(past.body.error, /expiresAt/);
  const bad = await hub.request('POST', '/api/auth/api-keys', { token, body: { name: 'k', permissions: ['everything:all'] } });
  assert.is(bad.status, 400);
  assert.match(bad.body.error, /permissions\.0/);
});

test('an API key works as a bearer token on MCP routes, and a revoked one stops working', async () => {
  const created = await hub.request('POST', '/api/auth/api-keys', { token, body: { name: 'agent', permissions: ['tools:read', 'tools:execute', 'servers:read'] } });
  const key = created.body.data.key as string;
  const c = await agent(hub.url + '/api/mcp', { token: key });
  const r = await c.callTool({ name: 'everything-echo', arguments: { message: 'with key' } });
  assert.match(JSON.stringify(r), /with key/);
  await c.close();
  const revoke = await hub.request('DELETE', `/api/auth/api-keys/${created.body.data.id}`, { token });
  assert.is(revoke.status, 200);
  assert.is((await withKey('GET', '/api/servers', key)).status, 401);
  try {
    await agent(hub.url + '/api/mcp', { token: key });
    assert.unreachable('revoked key accepted');
  } catch (err) {
    assert.match(String(err), /401|Invalid/);
  }
});

test('a key without tools:execute cannot open an MCP session at all', async () => {
  const key = (await hub.request('POST', '/api/auth/api-keys', { token, body: { name: 'lister', permissions: ['tools:read'] } })).body.data.key;
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const res = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify(init) });
  assert.is(res.status, 403);
  assert.match(await res.text(), /tools:execute/);
  // The same key still reads over REST what it was given.
  assert.is((await hub.request('GET', '/api/servers', { headers: { 'x-api-key': key } })).status, 403);
});

test('the legacy routing.bearerAuthKey was migrated once into a key with full MCP access', async () => {
  const file = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  assert.is(file.systemConfig.routing.bearerAuthKey, undefined);
  assert.ok(file.apiKeys.some((k: any) => k.name.includes('bearerAuthKey')));
  assert.not.match(JSON.stringify(file.apiKeys), /legacy-secret-key/);
  const c = await agent(hub.url + '/mcp', { token: 'legacy-secret-key' });
  assert.match(JSON.stringify(await c.callTool({ name: 'crashy-echo', arguments: { message: 'legacy' } })), /legacy/);
  await c.close();
});

test("MCPHub's bearerKeys keep their scope: servers, groups, disabled", async () => {
  const s = await agent(hub.url + '/mcp/everything', { token: 'mcphub-servers-token' });
  const sn = (await s.listTools()).tools.map((t) => t.name);
  assert.ok(sn.length > 0 && sn.every((n) => n.startsWith('everything-')));
  await s.close();
  const g = await agent(hub.url + '/mcp/only-crashy', { token: 'mcphub-group-token' });
  const gn = (await g.listTools()).tools.map((t) => t.name);
  assert.ok(gn.length > 0 && gn.every((n) => n.startsWith('crashy-')));
  await g.close();
  // Scoped keys stay on their routes: not the global ones, not another server.
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  for (const [route, key] of [['/mcp', 'mcphub-group-token'], ['/api/mcp', 'mcphub-group-token'], ['/api/mcp', 'mcphub-servers-token'], ['/mcp/crashy', 'mcphub-servers-token'], ['/mcp/everything', 'mcphub-group-token']]) {
    const res = await fetch(hub.url + route!, { method: 'POST', headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, body: init });
    assert.is(res.status, 403, `${key} on ${route}`);
  }
  const denied = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: { authorization: 'Bearer mcphub-disabled-token', accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, body: '{}' });
  assert.is(denied.status, 401);
  // They are MCP keys only, and never shown.
  assert.is((await hub.request('GET', '/api/servers', { token: 'mcphub-servers-token' })).status, 401);
  assert.not.match(JSON.stringify((await hub.request('GET', '/api/settings', { token })).body), /mcphub-servers-token/);
});

test.run();
