/**
 * The consumer role uses servers without seeing their configuration: it lists
 * and calls the tools of its grants over MCP and REST, and every door that
 * shows a server's command, arguments, environment, headers or URL is closed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, waitFor } from '../helpers/mcp';
import { wsClient } from '../helpers/trpc';

let hub: TestHub;
let admin: string;
let consumer: string;

test.before(async () => {
  hub = await startHub();
  admin = await hub.login();
  await hub.request('POST', '/api/servers', { token: admin, body: { name: 'secretive', config: { command: process.execPath, args: [fixture('crashy.mjs')], env: { API_KEY: 'sk-very-secret' } } } });
  await hub.request('POST', '/api/servers', { token: admin, body: { name: 'other', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  for (const n of ['secretive', 'other']) await waitFor(async () => (await hub.request('GET', `/api/servers/${n}`, { token: admin })).body.data.status === 'connected', 10_000, n);
  assert.is((await hub.request('POST', '/api/users', { token: admin, body: { username: 'carl', password: 'carl-pass-123', role: 'consumer', servers: ['secretive'] } })).status, 200);
  consumer = await hub.login('carl', 'carl-pass-123');
});
test.after(() => hub.close());

test('a consumer lists and calls the tools of its grant over MCP and REST, and nothing else', async () => {
  const c = await agent(`${hub.url}/mcp`, { token: consumer });
  const names = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('secretive-echo'), names.join());
  assert.not.ok(names.some((n) => n.startsWith('other-')), 'only its grant');
  const r = await c.callTool({ name: 'secretive-echo', arguments: { message: 'hi' } });
  assert.match(JSON.stringify(r.content), /hi/);
  await c.close();
  const rest = await hub.request('POST', '/api/tools/call/secretive', { token: consumer, body: { toolName: 'echo', arguments: { message: 'rest' } } });
  assert.is(rest.status, 200);
});

test('no door shows a consumer the configuration of its server', async () => {
  for (const url of ['/api/servers', '/api/servers/secretive', '/api/settings', '/api/mcp-settings/export']) {
    const res = await hub.request('GET', url, { token: consumer });
    assert.ok(res.status === 403 || res.status === 401, `${url}: ${res.status}`);
    assert.not.match(JSON.stringify(res.body), /crashy\.mjs|sk-very-secret/);
  }
  const live = wsClient(hub.url, consumer);
  const err = await live.client.servers.list.query().catch((e: Error) => e);
  assert.match(String((err as Error).message), /servers:read/);
  live.close();
});

test.run();
