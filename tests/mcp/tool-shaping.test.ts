/**
 * Per-group tool shaping: a group offers a server's tool under another name,
 * with some arguments fixed (agents cannot see or change them) or defaulted.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, waitFor } from '../helpers/mcp';
import { wsClient } from '../helpers/trpc';

let hub: TestHub;
let token: string;
const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')], env: { PROJECT: 'alpha' } } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/crashy', { token })).body.data.status === 'connected', 10_000, 'connected');
});
test.after(() => hub.close());

test('a group offers a renamed tool with a fixed argument and another with a default', async () => {
  const toolsOverride = {
    echo: { name: 'say_project', description: 'Says the project name', arguments: { fixed: { message: 'PROJ-1' } } },
    env: { name: 'project_env', arguments: { defaults: { name: 'PROJECT' } } },
  };
  const res = await hub.request('POST', '/api/groups', { token, body: { name: 'proj', servers: [{ name: 'crashy', toolsOverride }] } });
  assert.ok(res.status < 300, JSON.stringify(res.body));
  const c = await agent(`${hub.url}/mcp/proj`, { token });
  const tools = (await c.listTools()).tools;
  const say = tools.find((t) => t.name === 'say_project')!;
  assert.ok(say, tools.map((t) => t.name).join());
  assert.is(say.description, 'Says the project name');
  assert.not.ok('message' in ((say.inputSchema.properties ?? {}) as object), 'a fixed argument is not offered');
  assert.not.ok(tools.some((t) => t.name === 'crashy-echo'), 'the original name is not offered on this route');
  assert.match(text(await c.callTool({ name: 'say_project', arguments: {} })), /PROJ-1/);
  assert.match(text(await c.callTool({ name: 'say_project', arguments: { message: 'something else' } })), /PROJ-1/, 'the fixed value wins');
  const env = tools.find((t) => t.name === 'project_env')!;
  assert.is((env.inputSchema.properties as Record<string, { default?: unknown }>).name!.default, 'PROJECT');
  assert.not.ok((env.inputSchema.required ?? []).includes('name'));
  assert.match(text(await c.callTool({ name: 'project_env', arguments: {} })), /alpha/);
  await c.close();
  // Elsewhere the tool is as the server offers it.
  const all = await agent(`${hub.url}/mcp`, { token });
  assert.match(text(await all.callTool({ name: 'crashy-echo', arguments: { message: 'plain' } })), /plain/);
  await all.close();
});

test('a shaping made over tRPC reaches the group route at once', async () => {
  const { client, close } = wsClient(hub.url, token);
  try {
    await client.groups.create.mutate({ name: 'ops', servers: [{ name: 'crashy', tools: ['echo'], toolsOverride: { echo: { name: 'page_oncall', arguments: { fixed: { message: 'wake up' } } } } }] });
  } finally {
    close();
  }
  const c = await agent(`${hub.url}/mcp/ops`, { token });
  assert.equal((await c.listTools()).tools.map((t) => t.name), ['page_oncall']);
  assert.match(text(await c.callTool({ name: 'page_oncall', arguments: {} })), /wake up/);
  await c.close();
});

test('a bad shaping is refused with the field named', async () => {
  const res = await hub.request('POST', '/api/groups', { token, body: { name: 'bad', servers: [{ name: 'crashy', toolsOverride: { echo: { name: 'has space' } } }] } });
  assert.is(res.status, 400);
  assert.match(JSON.stringify(res.body), /toolsOverride/);
});

test.run();
