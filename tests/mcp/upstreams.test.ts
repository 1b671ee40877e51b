import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, everythingBin, fixture, waitFor } from '../helpers/mcp';
import { freePort, kill, startProcess } from '../helpers/spawn';

let hub: TestHub;
let token: string;
const children: ChildProcess[] = [];
const text = (r: any) => r.content?.[0]?.text as string;
const view = async (name: string) => (await hub.request('GET', `/api/servers/${name}`, { token })).body.data;
const status = (name: string, want: string) => waitFor(async () => (await view(name))?.status === want, 15_000, `${name} ${want}`);
const call = (server: string, toolName: string, args: object = {}) =>
  hub.request('POST', `/api/tools/call/${server}`, { token, body: { toolName, arguments: args } });

async function everythingHttp(mode: 'sse' | 'streamableHttp', port: number) {
  const p = await startProcess(process.execPath, [everythingBin, mode], { PORT: String(port) }, /listening|running|port/i);
  children.push(p.child);
  return p.child;
}

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
});
test.after(async () => {
  await hub.close();
  await Promise.all(children.map(kill));
});

test('a streamable-http upstream serves its tools, and a restart of it is survived by the next call', async () => {
  const port = await freePort();
  let upstream = await everythingHttp('streamableHttp', port);
  await hub.request('POST', '/api/servers', { token, body: { name: 'remote', config: { type: 'streamable-http', url: `http://127.0.0.1:${port}/mcp` } } });
  await status('remote', 'connected');
  assert.match(text((await call('remote', 'echo', { message: 'one' })).body.data), /one/);
  await kill(upstream);
  upstream = await everythingHttp('streamableHttp', port);
  // The old session is gone on the new process: Hub rebuilds it and sends the call again.
  const again = await call('remote', 'echo', { message: 'two' });
  assert.is(again.status, 200, JSON.stringify(again.body));
  assert.match(text(again.body.data), /two/);
});

test('an sse upstream serves its tools with headers sent and keepAliveInterval applied', async () => {
  const port = await freePort();
  await everythingHttp('sse', port);
  const res = await hub.request('POST', '/api/servers', {
    token,
    body: { name: 'legacy', config: { type: 'sse', url: `http://127.0.0.1:${port}/sse`, headers: { 'x-test': '1' }, keepAliveInterval: 1000 } },
  });
  assert.is(res.status, 200);
  await status('legacy', 'connected');
  assert.match(text((await call('legacy', 'get-sum', { a: 1, b: 1 })).body.data), /2/);
});

test('a stdio server that dies is respawned and serves calls again', async () => {
  await hub.request('POST', '/api/servers', { token, body: { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await status('crashy', 'connected');
  const pid1 = text((await call('crashy', 'pid')).body.data);
  const crashed = await call('crashy', 'crash');
  assert.ok(crashed.status >= 400 || crashed.body.data?.isError, 'the crashing call reports an error');
  const back = await waitFor(async () => {
    const r = await call('crashy', 'pid');
    return r.status === 200 && text(r.body.data) !== pid1 && text(r.body.data);
  }, 15_000, 'respawn');
  assert.ok(Number(back) > 0);
  const v = await view('crashy');
  assert.is(v.status, 'connected');
  assert.ok(v.reconnects >= 1);
});

test('tool list changes upstream reach the agent, progress and sampling pass through', async () => {
  await hub.request('POST', '/api/servers', { token, body: { name: 'dyn', config: { command: process.execPath, args: [fixture('dynamic.mjs')] } } });
  await status('dyn', 'connected');
  const client = new Client({ name: 'agent', version: '1' }, { capabilities: { sampling: {} } });
  let changed = 0;
  const logs: string[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
    role: 'assistant',
    model: 'test-model',
    content: { type: 'text', text: `pong to ${(req.params.messages[0]!.content as { text: string }).text}` },
  }));
  await client.connect(new StreamableHTTPClientTransport(new URL(hub.url + '/api/mcp'), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  await client.callTool({ name: 'dyn-add-tool', arguments: { name: 'fresh' } });
  await waitFor(() => changed > 0, 5000, 'list_changed');
  const tools = await waitFor(async () => {
    const t = await client.listTools();
    return t.tools.some((x) => x.name === 'dyn-fresh') && t;
  }, 5000, 'new tool listed');
  assert.ok(tools);
  assert.match(text(await client.callTool({ name: 'dyn-fresh', arguments: {} })), /I am fresh/);

  const progress: number[] = [];
  const slow = await client.callTool({ name: 'dyn-slow', arguments: { steps: 3, ms: 20 } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
  assert.match(text(slow), /done after 3/);
  assert.equal(progress, [1, 2, 3]);

  const asked = await client.callTool({ name: 'dyn-ask', arguments: { question: 'ping' } });
  assert.match(text(asked), /model said: pong to ping/);

  await client.callTool({ name: 'dyn-log', arguments: { text: 'hello log' } });
  await waitFor(() => logs.includes('hello log'), 3000, 'log message');
  await client.close();
});

test('tools of a server are served from the cache at once after a restart, before it reconnects', async () => {
  const dir = hub.dir;
  await hub.request('POST', '/api/servers', {
    token,
    body: { name: 'sleepy', config: { command: process.execPath, args: [fixture('crashy.mjs')], env: { START_DELAY_MS: '0' } } },
  });
  await status('sleepy', 'connected');
  // Make the next start slow, then restart Hub on the same data folder.
  await hub.app.hub.services.store.update((s) => {
    s.mcpServers.sleepy!.env = { START_DELAY_MS: '4000' };
  });
  await hub.close({ keepDir: true });
  hub = await startHub({ dir });
  token = await hub.login();
  const started = Date.now();
  const c = await agent(hub.url + '/api/mcp', { token });
  const names = (await c.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('sleepy-echo'), 'cached tool listed');
  assert.ok(Date.now() - started < 3000, 'listed before the server finished starting');
  // A call made while it is still starting waits for it instead of failing.
  const waited = await c.callTool({ name: 'sleepy-echo', arguments: { message: 'patience' } });
  assert.match(text(waited), /patience/, JSON.stringify(waited));
  await c.close();
});

test.run();
