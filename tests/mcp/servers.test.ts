import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, stdioEverything, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const clients: Client[] = [];
const connect = async (path = '/api/mcp', sse = false) => {
  const c = await agent(hub.url + path, { token, sse });
  clients.push(c);
  return c;
};
const serverView = async (name: string) => (await hub.request('GET', `/api/servers/${name}`, { token })).body.data;
const connected = (name: string) => waitFor(async () => (await serverView(name))?.status === 'connected', 15_000, `${name} connected`);
const text = (r: any) => r.content?.[0]?.text as string;

test.before(async () => {
  hub = await startHub({ env: { UPSTREAM_TEST_SECRET: 'from-env' } });
  token = await hub.login();
  for (const [name, config] of [
    ['everything', stdioEverything()],
    ['crashy', { type: 'stdio', command: process.execPath, args: [fixture('crashy.mjs')], env: { SECRET_VALUE: '${UPSTREAM_TEST_SECRET}' } }],
  ] as const) {
    const res = await hub.request('POST', '/api/servers', { token, body: { name, config } });
    assert.is(res.status, 200, JSON.stringify(res.body));
  }
  await connected('everything');
  await connected('crashy');
});
test.after(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await hub.close();
});

test('GET /api/servers lists status, tools and config', async () => {
  const res = await hub.request('GET', '/api/servers', { token });
  assert.is(res.status, 200);
  const everything = res.body.data.find((s: any) => s.name === 'everything');
  assert.is(everything.status, 'connected');
  assert.ok(everything.tools.some((t: any) => t.name === 'echo' && typeof t.description === 'string'));
  assert.is(everything.config.type, 'stdio');
});

test('agents see every enabled tool namespaced as <server>-<tool> and can call them', async () => {
  const c = await connect();
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('everything-echo'));
  assert.ok(names.includes('crashy-echo'));
  assert.ok(names.every((n) => n.length <= 64));
  const r = await c.callTool({ name: 'everything-get-sum', arguments: { a: 2, b: 40 } });
  assert.match(text(r), /42/);
});

test('MCPHub paths and legacy SSE serve the same catalog', async () => {
  const a = await connect('/mcp');
  const b = await connect('/sse', true);
  const [la, lb] = await Promise.all([a.listTools(), b.listTools()]);
  assert.equal(la.tools.map((t) => t.name).sort(), lb.tools.map((t) => t.name).sort());
  assert.match(text(await b.callTool({ name: 'crashy-echo', arguments: { message: 'over sse' } })), /over sse/);
  const legacyOnApi = await connect('/api/mcp', true);
  assert.match(text(await legacyOnApi.callTool({ name: 'crashy-echo', arguments: { message: 'api sse' } })), /api sse/);
});

test('${VAR} in a config is expanded at connect time and the file keeps the placeholder', async () => {
  const r = await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'env', arguments: { name: 'SECRET_VALUE' } } });
  assert.is(text(r.body.data), 'from-env');
  const file = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  assert.is(file.mcpServers.crashy.env.SECRET_VALUE, '${UPSTREAM_TEST_SECRET}');
});

test('stdio children do not inherit Hub secrets from the environment', async () => {
  // Set in Hub's own process environment, so a child that inherited it would see it.
  process.env.HUB_LEAK_CHECK = 'must-not-leak';
  await hub.request('POST', '/api/servers', { token, body: { name: 'leakcheck', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await connected('leakcheck');
  const leaked = await hub.request('POST', '/api/tools/call/leakcheck', { token, body: { toolName: 'env', arguments: { name: 'HUB_LEAK_CHECK' } } });
  assert.is(text(leaked.body.data), '(unset)');
  // PATH is passed on: children must still find their commands.
  const pathVar = await hub.request('POST', '/api/tools/call/leakcheck', { token, body: { toolName: 'env', arguments: { name: 'PATH' } } });
  assert.is.not(text(pathVar.body.data), '(unset)');
  delete process.env.HUB_LEAK_CHECK;
  await hub.request('DELETE', '/api/servers/leakcheck', { token });
});

test('REST tool calls convert argument strings to the schema types', async () => {
  const r = await hub.request('POST', '/api/tools/call/everything', { token, body: { toolName: 'get-sum', arguments: { a: '20', b: '22' } } });
  assert.is(r.status, 200);
  assert.is(r.body.success, true);
  assert.is(r.body.data.toolName, 'get-sum');
  assert.equal(r.body.data.arguments, { a: 20, b: 22 });
  assert.match(text(r.body.data), /42/);
  const missing = await hub.request('POST', '/api/tools/call/everything', { token, body: { arguments: {} } });
  assert.is(missing.status, 400);
  assert.match(missing.body.error, /toolName/);
  const anon = await hub.request('POST', '/api/tools/call/everything', { body: { toolName: 'echo' } });
  assert.is(anon.status, 401);
});

test('OpenAPI-style routes call tools from a query string or a JSON body, and publish a document', async () => {
  const get = await hub.request('GET', '/api/tools/everything/get-sum?a=1&b=2');
  assert.is(get.status, 200);
  assert.match(text(get.body.data), /3/);
  const post = await hub.request('POST', '/api/tools/crashy/echo', { body: { message: 'body' } });
  assert.match(text(post.body.data), /echo: body/);
  const doc = await hub.request('GET', '/api/openapi.json');
  assert.is(doc.body.openapi, '3.1.0');
  assert.ok(doc.body.paths['/api/tools/everything/echo'].post.requestBody);
});

test('a disabled tool is neither listed nor callable, on every route, and comes back when enabled', async () => {
  const c = await connect();
  const off = await hub.request('POST', '/api/servers/crashy/tools/echo/toggle', { token, body: { enabled: false } });
  assert.is(off.status, 200);
  assert.not.ok((await c.listTools()).tools.some((t) => t.name === 'crashy-echo'));
  try {
    await c.callTool({ name: 'crashy-echo', arguments: { message: 'x' } });
    assert.unreachable('disabled tool was callable');
  } catch (err) {
    assert.match(String(err), /not found/);
  }
  const rest = await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'echo', arguments: { message: 'x' } } });
  assert.is(rest.status, 404);
  const open = await hub.request('GET', '/api/tools/crashy/echo?message=x');
  assert.is(open.status, 404);
  const view = await serverView('crashy');
  assert.is(view.tools.find((t: any) => t.name === 'echo').enabled, false);
  await hub.request('POST', '/api/servers/crashy/tools/echo/toggle', { token, body: { enabled: true } });
  assert.ok((await c.listTools()).tools.some((t) => t.name === 'crashy-echo'));
});

test('toggling a tool tells connected agents that the list changed', async () => {
  const c = await connect();
  let changed = 0;
  const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  await hub.request('POST', '/api/servers/everything/tools/get-env/toggle', { token, body: { enabled: false } });
  await waitFor(() => changed > 0, 5000, 'tools/list_changed');
  await hub.request('POST', '/api/servers/everything/tools/get-env/toggle', { token, body: { enabled: true } });
});

test('a tool description can be replaced and reset', async () => {
  const c = await connect();
  const put = await hub.request('PUT', '/api/servers/everything/tools/echo/description', { token, body: { description: 'Says it back' } });
  assert.is(put.status, 200);
  assert.is((await c.listTools()).tools.find((t) => t.name === 'everything-echo')!.description, 'Says it back');
  const view = await serverView('everything');
  assert.ok(view.tools.find((t: any) => t.name === 'echo').originalDescription);
  const reset = await hub.request('DELETE', '/api/servers/everything/tools/echo/description', { token });
  assert.is(reset.status, 200);
  assert.is.not((await c.listTools()).tools.find((t) => t.name === 'everything-echo')!.description, 'Says it back');
  const bad = await hub.request('PUT', '/api/servers/everything/tools/echo/description', { token, body: {} });
  assert.is(bad.status, 400);
  assert.match(bad.body.error, /description/);
  const unknown = await hub.request('POST', '/api/servers/everything/tools/nope/toggle', { token, body: { enabled: false } });
  assert.is(unknown.status, 404);
});

test('prompts: listed, executed over REST and MCP, toggled and described', async () => {
  const c = await connect();
  assert.ok((await c.listPrompts()).prompts.some((p) => p.name === 'crashy-greet'));
  const got = await c.getPrompt({ name: 'crashy-greet', arguments: { name: 'Ada' } });
  assert.match(JSON.stringify(got.messages), /Hello, Ada!/);
  const rest = await hub.request('POST', '/api/mcp/crashy/prompts/greet', { token, body: { arguments: { name: 'Bob' } } });
  assert.is(rest.status, 200);
  assert.match(JSON.stringify(rest.body.data), /Hello, Bob!/);
  await hub.request('PUT', '/api/servers/crashy/prompts/greet/description', { token, body: { description: 'Friendly hello' } });
  assert.is((await c.listPrompts()).prompts.find((p) => p.name === 'crashy-greet')!.description, 'Friendly hello');
  await hub.request('POST', '/api/servers/crashy/prompts/greet/toggle', { token, body: { enabled: false } });
  assert.not.ok((await c.listPrompts()).prompts.some((p) => p.name === 'crashy-greet'));
  const blocked = await hub.request('POST', '/api/mcp/crashy/prompts/greet', { token, body: { arguments: { name: 'Bob' } } });
  assert.is(blocked.status, 404);
  await hub.request('POST', '/api/servers/crashy/prompts/greet/toggle', { token, body: { enabled: true } });
});

test('a disabled server is neither listed nor callable and its process stops', async () => {
  const c = await connect();
  const pid = Number(text((await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'pid' } })).body.data));
  const off = await hub.request('POST', '/api/servers/crashy/toggle', { token, body: { enabled: false } });
  assert.is(off.status, 200);
  assert.is((await serverView('crashy')).status, 'disabled');
  assert.not.ok((await c.listTools()).tools.some((t) => t.name.startsWith('crashy-')));
  const rest = await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'echo', arguments: { message: 'x' } } });
  assert.is(rest.status, 404);
  await waitFor(() => !alive(pid), 5000, 'process gone');
  await hub.request('POST', '/api/servers/crashy/toggle', { token, body: { enabled: true } });
  await connected('crashy');
  assert.ok((await c.listTools()).tools.some((t) => t.name === 'crashy-echo'));
});

test('creating a duplicate, a bad config or a bad name is refused with a clear error', async () => {
  const dup = await hub.request('POST', '/api/servers', { token, body: { name: 'crashy', config: { command: 'x' } } });
  assert.is(dup.status, 409);
  const noCommand = await hub.request('POST', '/api/servers', { token, body: { name: 'x1', config: { type: 'stdio' } } });
  assert.is(noCommand.status, 400);
  assert.match(noCommand.body.error, /config\.command/);
  const badUrl = await hub.request('POST', '/api/servers', { token, body: { name: 'x2', config: { type: 'streamable-http', url: 'nope' } } });
  assert.is(badUrl.status, 400);
  assert.match(badUrl.body.error, /config\.url/);
  const badName = await hub.request('POST', '/api/servers', { token, body: { name: 'a/b', config: { command: 'x' } } });
  assert.is(badName.status, 400);
  assert.match(badName.body.error, /name/);
  const missing = await hub.request('PUT', '/api/servers/nope', { token, body: { config: { command: 'x' } } });
  assert.is(missing.status, 404);
});

test('a server that cannot start stays visible with its error', async () => {
  await hub.request('POST', '/api/servers', { token, body: { name: 'broken', config: { command: '/nonexistent/binary' } } });
  const view = await waitFor(async () => {
    const v = await serverView('broken');
    return v.status === 'error' && v;
  }, 5000, 'error status');
  assert.match(view.error, /ENOENT|nonexistent/);
  await hub.request('DELETE', '/api/servers/broken', { token });
});

test('deleting a server stops its process and its grandchildren, and removes it from groups', async () => {
  await hub.request('POST', '/api/servers', { token, body: { name: 'doomed', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await connected('doomed');
  await hub.app.hub.services.store.update((s) => {
    s.groups.push({ id: 'g-doomed', name: 'doomed-group', servers: ['doomed', 'everything'] });
  });
  const pid = Number(text((await hub.request('POST', '/api/tools/call/doomed', { token, body: { toolName: 'pid' } })).body.data));
  const grandchild = Number(text((await hub.request('POST', '/api/tools/call/doomed', { token, body: { toolName: 'grandchild' } })).body.data));
  assert.ok(alive(pid) && alive(grandchild));
  const del = await hub.request('DELETE', '/api/servers/doomed', { token });
  assert.is(del.status, 200);
  await waitFor(() => !alive(pid) && !alive(grandchild), 5000, 'process group gone');
  const group = hub.app.hub.services.store.get().groups.find((g) => g.id === 'g-doomed')!;
  assert.equal(group.servers, ['everything']);
  assert.is((await hub.request('GET', '/api/servers/doomed', { token })).status, 404);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test.run();
