/**
 * Agents of the stateless revision (2026-07-28, SDK v2) on the same routes as
 * older agents: server/discover, lists, calls, prompts, with Hub's permissions,
 * and list changes on subscriptions/listen. Mixed with an older agent at once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, stdioEverything, waitFor } from '../helpers/mcp';
import { kill, startProcess } from '../helpers/spawn';
import type { ChildProcess } from 'node:child_process';

let hub: TestHub;
let token: string;
let upstream: ChildProcess;

async function modern(path = '/mcp', bearer = token, capabilities: Record<string, unknown> = {}) {
  const client = new ModernClient({ name: 'modern-agent', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
  await client.connect(new ModernTransport(new URL(`${hub.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'everything', config: stdioEverything() } });
  await hub.request('POST', '/api/servers', { token, body: { name: 'dyn', config: { command: process.execPath, args: [fixture('dynamic.mjs')] } } });
  await hub.request('POST', '/api/servers', { token, body: { name: 'proto', config: { command: process.execPath, args: [fixture('protocol.mjs')] } } });
  // An upstream that speaks only the stateless revision.
  const p = await startProcess(process.execPath, [fixture('modern-server.mjs')], {}, /PORT=\d+/);
  upstream = p.child;
  await hub.request('POST', '/api/servers', { token, body: { name: 'modern', config: { type: 'streamable-http', url: `http://127.0.0.1:${/PORT=(\d+)/.exec(p.output())![1]}/mcp` } } });
  for (const name of ['everything', 'dyn', 'modern', 'proto']) await waitFor(async () => (await hub.request('GET', `/api/servers/${name}`, { token })).body.data.status === 'connected', 20_000, `${name} connected`);
});
test.after(async () => {
  await hub.close();
  await kill(upstream);
});

test('a 2026-07-28 agent discovers Hub, lists and calls tools without a session, beside an older agent', async () => {
  const sessions = hub.app.hub.services.sessions.size;
  const client = await modern();
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes('everything-echo') && tools.includes('dyn-slow'), tools.join());
  assert.is(hub.app.hub.services.sessions.size, sessions, 'no session was opened for it');
  const r = await client.callTool({ name: 'everything-echo', arguments: { message: 'stateless' } });
  assert.match(JSON.stringify(r.content), /stateless/);
  const old = await agent(`${hub.url}/mcp`, { token });
  assert.match(JSON.stringify((await old.callTool({ name: 'everything-echo', arguments: { message: 'sessionful' } })).content), /sessionful/);
  await old.close();
  await client.close();
});

test('a 2026-07-28 agent gets prompts and resources, and Hub\'s errors as errors', async () => {
  const client = await modern();
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  assert.ok(prompts.includes('everything-simple-prompt'), prompts.join());
  const got = await client.getPrompt({ name: 'everything-simple-prompt' });
  assert.ok(got.messages.length > 0);
  const err = await client.callTool({ name: 'nope-tool', arguments: {} }).then(
    (x) => x,
    (e) => e,
  );
  assert.match(String((err as Error).message ?? JSON.stringify(err)), /not found/);
  await client.close();
});

test('a 2026-07-28 agent on a group route sees that route\'s servers only, and a restricted user only what it may', async () => {
  const client = await modern('/mcp/dyn');
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.length > 0 && tools.every((n) => n.startsWith('dyn-')), tools.join());
  await client.close();
  await hub.request('POST', '/api/users', { token, body: { username: 'viewer1', password: 'viewer-pass-1', role: 'user' } });
  const none = await modern('/mcp', await hub.login('viewer1', 'viewer-pass-1'));
  assert.equal((await none.listTools()).tools, [], 'a user granted no server sees no tool');
  await none.close();
});

test('a 2026-07-28 agent listening with subscriptions/listen hears a tool list change', async () => {
  const client = await modern();
  let heard = 0;
  client.setNotificationHandler('notifications/tools/list_changed' as never, (() => void heard++) as never);
  const sub = await client.listen({ toolsListChanged: true });
  assert.ok(sub.honoredFilter.toolsListChanged);
  await hub.request('POST', '/api/servers/dyn/tools/slow/toggle', { token, body: { enabled: false } });
  await waitFor(() => heard > 0, 3000, 'tools/list_changed on the listen stream');
  assert.not.ok((await client.listTools()).tools.some((t) => t.name === 'dyn-slow'));
  await hub.request('POST', '/api/servers/dyn/tools/slow/toggle', { token, body: { enabled: true } });
  await sub.close();
  await client.close();
});

test('an upstream that speaks only 2026-07-28 is used: an older agent and a new one both call it', async () => {
  const old = await agent(`${hub.url}/mcp`, { token });
  const r1 = await old.callTool({ name: 'modern-shout', arguments: { text: 'hello' } });
  assert.match(JSON.stringify(r1.content), /HELLO!/);
  await old.close();
  const client = await modern();
  const r2 = await client.callTool({ name: 'modern-shout', arguments: { text: 'again' } });
  assert.match(JSON.stringify(r2.content), /AGAIN!/);
  await client.close();
  const view = (await hub.request('GET', '/api/servers/modern', { token })).body.data;
  assert.is(view.status, 'connected');
});

test('an older upstream asking for input mid-call reaches a 2026-07-28 agent as input_required rounds', async () => {
  const client = await modern('/mcp', token, { elicitation: { form: {} } });
  let asked = '';
  client.setRequestHandler('elicitation/create' as never, (async (req: { params: { message: string } }) => {
    asked = req.params.message;
    return { action: 'accept', content: { name: 'Grace' } };
  }) as never);
  const r = await client.callTool({ name: 'proto-ask-defaults', arguments: {} });
  assert.is(asked, 'Accept the defaults');
  assert.equal(JSON.parse((r.content as Array<{ text: string }>)[0]!.text), { action: 'accept', content: { name: 'Grace', age: 30, verified: true } });
  await client.close();
});

test('an older upstream asking for input while it builds a prompt reaches a 2026-07-28 agent as input_required rounds too', async () => {
  const client = await modern('/mcp', token, { elicitation: { form: {} } });
  client.setRequestHandler('elicitation/create' as never, (async () => ({ action: 'accept', content: { topic: 'tide pools' } })) as never);
  const r = await client.getPrompt({ name: 'proto-ask-topic', arguments: {} });
  assert.equal(r.messages[0]!.content, { type: 'text', text: 'Tell me about tide pools' });
  await client.close();
});

test.run();
