/**
 * New tools hidden until approved (`defaultToolVisibility: 'deny'`), globally
 * or per server: a tool an upstream adds at run time reaches agents only once
 * an operator enables it, on MCP and REST alike.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, waitFor } from '../helpers/mcp';
import { isTRPCError, wsClient } from '../helpers/trpc';

let hub: TestHub;
let token: string;

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
});
test.after(() => hub.close());

const connected = (name: string) => waitFor(async () => (await hub.request('GET', `/api/servers/${name}`, { token })).body.data.status === 'connected', 10_000, `${name} connected`);

test('a bad visibility is refused with the field named', async () => {
  const res = await hub.request('PUT', '/api/system-config', { token, body: { defaultToolVisibility: 'maybe' } });
  assert.is(res.status, 400);
  assert.match(JSON.stringify(res.body), /defaultToolVisibility/);
});

test('with deny, a server\'s tools and the tools it adds later stay hidden until enabled', async () => {
  assert.is((await hub.request('PUT', '/api/system-config', { token, body: { defaultToolVisibility: 'deny' } })).status, 200);
  await hub.request('POST', '/api/servers', { token, body: { name: 'dyn', config: { command: process.execPath, args: [fixture('dynamic.mjs')] } } });
  await connected('dyn');
  const c = await agent(`${hub.url}/mcp`, { token });
  const names = async () => (await c.listTools()).tools.map((t) => t.name);
  assert.equal((await names()).filter((n) => n.startsWith('dyn-')), [], 'nothing offered yet');
  const view = (await hub.request('GET', '/api/servers/dyn', { token })).body.data;
  assert.ok(view.tools.length > 0 && view.tools.every((t: { enabled: boolean }) => !t.enabled), 'the console shows them switched off');
  const rest = () => hub.request('POST', '/api/tools/call/dyn', { token, body: { toolName: 'last-cancel', arguments: {} } });
  const refused = await rest();
  assert.ok(refused.status >= 400, 'not callable over REST either');
  await hub.request('POST', '/api/servers/dyn/tools/add-tool/toggle', { token, body: { enabled: true } });
  await hub.request('POST', '/api/servers/dyn/tools/last-cancel/toggle', { token, body: { enabled: true } });
  assert.is((await rest()).status, 200, 'the same REST call works once the tool is enabled');
  await waitFor(async () => (await names()).includes('dyn-add-tool'), 5000, 'approved tool offered');
  await c.callTool({ name: 'dyn-add-tool', arguments: { name: 'fresh' } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/dyn', { token })).body.data.tools.some((t: { name: string }) => t.name === 'fresh'), 5000, 'the upstream added a tool');
  assert.not.ok((await names()).includes('dyn-fresh'), 'a tool added at run time is held back');
  await hub.request('POST', '/api/servers/dyn/tools/fresh/toggle', { token, body: { enabled: true } });
  await waitFor(async () => (await names()).includes('dyn-fresh'), 5000, 'offered once enabled');
  await c.close();
});

test('a server set to allow offers its tools under a Hub-wide deny', async () => {
  await hub.request('POST', '/api/servers', { token, body: { name: 'open', config: { command: process.execPath, args: [fixture('crashy.mjs')], defaultToolVisibility: 'allow' } } });
  await connected('open');
  const c = await agent(`${hub.url}/mcp`, { token });
  assert.ok((await c.listTools()).tools.some((t) => t.name === 'open-echo'));
  await c.close();
});

test('over tRPC a held tool is refused, then callable once switched on there', async () => {
  const { client, close } = wsClient(hub.url, token);
  try {
    await client.settings.updateSystemConfig.mutate({ defaultToolVisibility: 'deny' });
    const call = () => client.tools.callTool.mutate({ server: 'dyn', toolName: 'log', arguments: { text: 'hi' } });
    const refused = await call().catch((e: unknown) => e);
    assert.ok(isTRPCError(refused) && refused.data?.code === 'NOT_FOUND', String(refused));
    await client.servers.toggleItem.mutate({ kind: 'tools', server: 'dyn', item: 'log', enabled: true });
    assert.match(JSON.stringify((await call()).content), /logged/);
  } finally {
    close();
  }
});

test.run();
