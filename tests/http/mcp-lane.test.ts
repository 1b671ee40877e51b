import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, waitFor } from '../helpers/mcp';

// In-session posts skip Fastify once the full route admitted them (http/mcp-lane.ts).
// Whatever would change that admission must still be seen at the next call.
let hub: TestHub;
let token: string;
let client: Client;
const echo = { jsonrpc: '2.0', id: 'e1', method: 'tools/call', params: { name: 'crashy-echo', arguments: { message: 'lane' } } };

/** A raw in-session POST; node:http so that Host can be set. */
function post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${hub.url}/api/mcp`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': client.transport!.sessionId!, ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/crashy', { token })).body.data.status === 'connected', 10_000, 'connected');
  client = await agent(`${hub.url}/api/mcp`, { token });
  await client.callTool({ name: 'crashy-echo', arguments: { message: 'admitted' } });
});
test.after(async () => {
  await client.close();
  await hub.close();
});

test('in-session calls are answered and counted in the request metrics under their route', async () => {
  const scrape = async () => (await fetch(`${hub.url}/api/monitoring/scrape`, { headers: { authorization: `Bearer ${token}` } })).text();
  const count = (text: string) => Number(/hub_http_requests_total\{method="POST",route="\/api\/mcp",status="200"\} (\d+)/.exec(text)?.[1] ?? 0);
  const first = count(await scrape());
  for (let i = 0; i < 5; i++) assert.match((await post(JSON.stringify(echo))).text, /echo: lane/);
  assert.ok(count(await scrape()) >= first + 5);
});

test('a routing change mid-session is enforced at the next call', async () => {
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableGlobalRoute: false } } });
  const refused = await post(JSON.stringify(echo));
  assert.is(refused.status, 403);
  assert.match(refused.text, /enableGlobalRoute/);
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { enableGlobalRoute: true } } });
  assert.is((await post(JSON.stringify(echo))).status, 200);
});

test("another user's credential on the session is refused", async () => {
  await hub.request('POST', '/api/users', { token, body: { username: 'mallory', password: 'mallory-pass-1' } });
  const login = await hub.request('POST', '/api/auth/login', { body: { username: 'mallory', password: 'mallory-pass-1' } });
  const theirs = await post(JSON.stringify(echo), { authorization: `Bearer ${login.body.token}` });
  assert.is(theirs.status, 403);
  assert.match(theirs.text, /another user/);
  const none = await post(JSON.stringify(echo), { authorization: '' });
  assert.is(none.status, 401);
});

test('a foreign Host is refused mid-session', async () => {
  const r = await post(JSON.stringify(echo), { host: 'evil.example.com' });
  assert.is(r.status, 403);
  assert.match(r.text, /Host/);
});

test('a body that is not JSON, or too large, is a clear error and the session goes on', async () => {
  assert.is((await post(JSON.stringify(echo))).status, 200); // the lane is taken again
  const broken = await post('{"jsonrpc":"2.0",');
  assert.is(broken.status, 400);
  assert.match(broken.text, /-32700|not valid JSON/);
  const poisoned = await post('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}');
  assert.is(poisoned.status, 400);
  const big = await post(JSON.stringify({ ...echo, params: { ...echo.params, arguments: { message: 'x'.repeat(5 * 1024 * 1024) } } }));
  assert.is(big.status, 413);
  assert.match((await post(JSON.stringify(echo))).text, /echo: lane/);
});

test('a pass ends with the token it was earned with', async () => {
  const short = await startHub({ env: { JWT_EXPIRES_IN: '3s' } });
  try {
    const t = await short.login();
    await short.request('POST', '/api/servers', { token: t, body: { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
    await waitFor(async () => (await short.request('GET', '/api/servers/crashy', { token: t })).body.data.status === 'connected', 10_000, 'connected');
    const c = await agent(`${short.url}/api/mcp`, { token: t });
    await c.callTool({ name: 'crashy-echo', arguments: { message: 'before' } }); // admitted: the pass is set
    const sessionId = c.transport!.sessionId!;
    const expired = await waitFor(async () => {
      const r = await fetch(`${short.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': sessionId },
        body: JSON.stringify(echo),
      });
      return r.status === 401 && r;
    }, 6000, 'the expired token refused');
    assert.is(expired.status, 401);
    await c.close().catch(() => undefined);
  } finally {
    await short.close();
  }
});

test.run();
