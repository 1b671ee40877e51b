import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, stdioEverything, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const mcpHeaders = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

test.before(async () => {
  hub = await startHub({ env: { MCP_SESSION_TTL: '1' } });
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'everything', config: stdioEverything() } });
  await hub.request('POST', '/api/servers', { token, body: { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers', { token })).body.data.every((s: any) => s.status === 'connected'), 15_000, 'connected');
  await hub.app.hub.services.store.update((s) => {
    s.groups.push({ id: 'g-1', name: 'dev', servers: [{ name: 'everything', tools: ['echo', 'get-sum'] }, 'crashy'] });
  });
});
test.after(() => hub.close());

test('MCP routes need a bearer token: 401 with WWW-Authenticate otherwise', async () => {
  const none = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: mcpHeaders, body: JSON.stringify(initialize) });
  assert.is(none.status, 401);
  assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
  const bad = await fetch(hub.url + '/mcp', { method: 'POST', headers: { ...mcpHeaders, authorization: 'Bearer nope' }, body: JSON.stringify(initialize) });
  assert.is(bad.status, 401);
  assert.match(bad.headers.get('www-authenticate') ?? '', /invalid_token/);
  const sse = await fetch(hub.url + '/sse');
  assert.is(sse.status, 401);
});

test('with enableBearerAuth off the MCP routes are open, the REST API is not', async () => {
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableBearerAuth: false } } });
  const c = await agent(hub.url + '/api/mcp');
  assert.ok((await c.listTools()).tools.length > 0);
  await c.close();
  assert.is((await hub.request('GET', '/api/servers')).status, 401);
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableBearerAuth: true } } });
});

test('a group route exposes exactly the selected tools, by id or by name', async () => {
  for (const path of ['/api/mcp/group/g-1', '/api/mcp/group/dev', '/mcp/dev']) {
    const c = await agent(hub.url + path, { token });
    const names = (await c.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('everything-echo') && names.includes('everything-get-sum'), path);
    assert.not.ok(names.includes('everything-get-env'), `${path} hides unselected tools`);
    assert.ok(names.includes('crashy-pid'), `${path} has all tools of a plain entry`);
    try {
      await c.callTool({ name: 'everything-get-env', arguments: {} });
      assert.unreachable('unselected tool callable');
    } catch (err) {
      assert.match(String(err), /not found/);
    }
    await c.close();
  }
});

test('the legacy SSE group route serves the group too', async () => {
  const c = await agent(hub.url + '/sse/dev', { token, sse: true });
  assert.not.ok((await c.listTools()).tools.some((t) => t.name === 'everything-get-env'));
  await c.close();
});

test('a server name works as a route too, and an unknown group is a 404', async () => {
  const c = await agent(hub.url + '/mcp/crashy', { token });
  assert.ok((await c.listTools()).tools.every((t) => t.name.startsWith('crashy-')));
  await c.close();
  const res = await fetch(hub.url + '/api/mcp/group/nope', { method: 'POST', headers: { ...mcpHeaders, authorization: `Bearer ${token}` }, body: JSON.stringify(initialize) });
  assert.is(res.status, 404);
});

test('routing switches: global route and group-name route can be turned off', async () => {
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableGlobalRoute: false, enableGroupNameRoute: false } } });
  const post = (path: string) => fetch(hub.url + path, { method: 'POST', headers: { ...mcpHeaders, authorization: `Bearer ${token}` }, body: JSON.stringify(initialize) });
  assert.is((await post('/api/mcp')).status, 403);
  assert.is((await post('/api/mcp/group/dev')).status, 403);
  assert.is((await post('/api/mcp/group/g-1')).status, 200);
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableGlobalRoute: true, enableGroupNameRoute: true } } });
  assert.is((await post('/api/mcp')).status, 200);
});

test('an unknown session id is a 404 so clients re-initialize; no session and no initialize is a 400', async () => {
  const headers = { ...mcpHeaders, authorization: `Bearer ${token}`, 'mcp-session-id': 'does-not-exist' };
  const res = await fetch(hub.url + '/api/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
  assert.is(res.status, 404);
  const noSession = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: { ...mcpHeaders, authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
  assert.is(noSession.status, 400);
});

test('idle sessions are reaped after the TTL; an agent with an open stream is kept', async () => {
  const headers = { ...mcpHeaders, authorization: `Bearer ${token}` };
  const init = await fetch(hub.url + '/api/mcp', { method: 'POST', headers, body: JSON.stringify(initialize) });
  const id = init.headers.get('mcp-session-id')!;
  await init.text();
  const live = await agent(hub.url + '/api/mcp', { token });
  await live.listTools();
  hub.app.hub.services.sessions.reap(Date.now() + 5_000);
  const after = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: { ...headers, 'mcp-session-id': id }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
  assert.is(after.status, 404);
  assert.ok((await live.listTools()).tools.length > 0, 'the agent listening on its stream keeps its session');
  await live.close();
});

test('a body that is not JSON is a JSON-RPC parse error naming the problem', async () => {
  const auth = { ...mcpHeaders, authorization: `Bearer ${token}` };
  const broken = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: auth, body: '{"jsonrpc":"2.0",' });
  assert.is(broken.status, 400);
  const body = await broken.json();
  assert.is(body.jsonrpc, '2.0');
  assert.is(body.error.code, -32700);
  assert.match(body.error.message, /not valid JSON/);
  const empty = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: auth, body: '' });
  assert.is(empty.status, 400);
  assert.is((await empty.json()).error.code, -32700);
});

test('Host and Origin are checked against DNS rebinding', async () => {
  const headers = { ...mcpHeaders, authorization: `Bearer ${token}` };
  // fetch will not send a foreign Host header; node:http will.
  const { request } = await import('node:http');
  const evilHost = await new Promise<number>((resolve, reject) => {
    const req = request(hub.url + '/api/mcp', { method: 'POST', headers: { ...headers, host: 'evil.example.com' } }, (res) => (res.resume(), resolve(res.statusCode!)));
    req.on('error', reject);
    req.end(JSON.stringify(initialize));
  });
  assert.is(evilHost, 403);
  const evilOrigin = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: { ...headers, origin: 'http://evil.example.com' }, body: JSON.stringify(initialize) });
  assert.is(evilOrigin.status, 403);
  const fine = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: { ...headers, origin: hub.url }, body: JSON.stringify(initialize) });
  assert.is(fine.status, 200);
});

test('each agent gets its own session', async () => {
  const a = await agent(hub.url + '/api/mcp', { token });
  const b = await agent(hub.url + '/api/mcp', { token });
  const ids = [(a.transport as any).sessionId, (b.transport as any).sessionId];
  assert.ok(ids[0] && ids[1] && ids[0] !== ids[1]);
  await Promise.all([a.close(), b.close()]);
});

test.run();
