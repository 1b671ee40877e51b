/**
 * Protocol features that pass through Hub in both directions: log levels,
 * upstream log messages and roots requests outside any call, roots changes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;

type Agent = { client: Client; messages: string[] };

async function connect(opts: { roots?: Array<{ uri: string; name: string }> } = {}): Promise<Agent> {
  const client = new Client({ name: 'agent', version: '1' }, { capabilities: opts.roots ? { roots: { listChanged: true } } : {} });
  const messages: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(String(n.params.data)));
  if (opts.roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: opts.roots! }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { client, messages };
}

const text = (r: unknown) => ((r as { content: Array<{ text: string }> }).content[0]!.text);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  hub = await startHub({ env: { MCP_PAGE_SIZE: '2' } });
  token = await hub.login();
  const res = await hub.request('POST', '/api/servers', { token, body: { name: 'proto', config: { command: process.execPath, args: [fixture('protocol.mjs')] } } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  await waitFor(async () => (await hub.request('GET', '/api/servers/proto', { token })).body.data?.status === 'connected', 15_000, 'proto connected');
});
test.after(() => hub.close());

test('logging/setLevel reaches the upstream, and Hub drops messages below the agent\'s level', async () => {
  const a = await connect();
  await a.client.callTool({ name: 'proto-log-levels', arguments: { levels: ['debug', 'error'] } });
  await sleep(100);
  assert.equal(a.messages, ['in-call debug', 'in-call error'], 'without a level every message arrives');
  a.messages.length = 0;
  await a.client.setLoggingLevel('error');
  assert.is(text(await a.client.callTool({ name: 'proto-level', arguments: {} })), 'error');
  await a.client.callTool({ name: 'proto-log-levels', arguments: { levels: ['debug', 'info', 'warning', 'error', 'critical'] } });
  await sleep(100);
  assert.equal(a.messages, ['in-call error', 'in-call critical']);
  await a.client.close();
});

test('an upstream\'s log messages outside any call reach every agent using it, each filtered by its own level', async () => {
  const quiet = await connect();
  const chatty = await connect();
  await quiet.client.setLoggingLevel('error');
  await chatty.client.setLoggingLevel('debug');
  assert.is(text(await chatty.client.callTool({ name: 'proto-level', arguments: {} })), 'debug', 'the upstream gets the most verbose level asked for');
  await chatty.client.callTool({ name: 'proto-log-later', arguments: { levels: ['info', 'error'] } });
  await waitFor(() => chatty.messages.length >= 2 && quiet.messages.length >= 1, 3000, 'the later messages');
  await sleep(100);
  assert.equal(chatty.messages, ['later info', 'later error']);
  assert.equal(quiet.messages, ['later error']);
  await quiet.client.close();
  await chatty.client.close();
});

test('an upstream asking for roots outside a call gets an agent\'s roots, and an agent\'s roots change reaches the upstream', async () => {
  const a = await connect({ roots: [{ uri: 'file:///work/project', name: 'project' }] });
  await a.client.callTool({ name: 'proto-roots-later', arguments: {} });
  const seen = await waitFor(async () => {
    const s = JSON.parse(text(await a.client.callTool({ name: 'proto-roots-seen', arguments: {} })));
    return s.roots !== 'none' && s;
  }, 3000, 'the roots request');
  assert.match(seen.roots, /file:\/\/\/work\/project/);
  await a.client.sendRootsListChanged();
  await waitFor(async () => JSON.parse(text(await a.client.callTool({ name: 'proto-roots-seen', arguments: {} }))).changed >= 1, 3000, 'roots/list_changed upstream');
  await a.client.close();
});

test('an upstream\'s JSON-RPC error reaches the agent once, with its code and data', async () => {
  const a = await connect();
  const err = await a.client.getPrompt({ name: 'proto-refuse' }).catch((e) => e);
  assert.is(err.code, -32602);
  assert.is(err.message, 'MCP error -32602: refused on purpose');
  assert.equal(err.data, { why: 'test' });
  await a.client.close();
});

test('Hub\'s own lists come in pages with a cursor, and a cursor it did not give is refused', async () => {
  const a = await connect();
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const r = await a.client.listTools(cursor ? { cursor } : undefined);
    assert.ok(r.tools.length <= 2);
    names.push(...r.tools.map((t) => t.name));
    cursor = r.nextCursor;
    pages++;
  } while (cursor);
  assert.is(pages, 4);
  assert.equal(names.sort(), ['proto-ask-defaults', 'proto-ask-url', 'proto-level', 'proto-log-later', 'proto-log-levels', 'proto-roots-later', 'proto-roots-seen']);
  const err = await a.client.listTools({ cursor: 'bogus' }).catch((e) => e);
  assert.is(err.code, -32602);
  assert.match(err.message, /cursor/);
  await a.client.close();
});

test('the capabilities Hub offers follow the upstreams of the route: no completions or subscriptions where none has them', async () => {
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp/proto`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const caps = client.getServerCapabilities()!;
  assert.ok(caps.tools && caps.prompts && caps.logging);
  assert.is(caps.completions, undefined);
  assert.is(caps.resources?.subscribe, undefined);
  await client.close();
});

test('an upstream\'s form elicitation reaches the agent, and schema defaults fill what the agent left out (SEP-1034)', async () => {
  const client = new Client({ name: 'agent', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  let asked = '';
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked = req.params.message;
    return { action: 'accept', content: { name: 'Ada' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const r = JSON.parse(text(await client.callTool({ name: 'proto-ask-defaults', arguments: {} })));
  assert.is(asked, 'Accept the defaults');
  assert.equal(r, { action: 'accept', content: { name: 'Ada', age: 30, verified: true } });
  await client.close();
});

test('URL-mode elicitation passes through both ways, with its completion notice', async () => {
  const client = new Client({ name: 'agent', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  let url = '';
  const done: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    url = (req.params as { url?: string }).url ?? '';
    return { action: 'accept' };
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => void done.push(n.params.elicitationId));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const r = JSON.parse(text(await client.callTool({ name: 'proto-ask-url', arguments: {} })));
  assert.is(url, 'https://auth.example.com/start');
  assert.is(r.action, 'accept');
  await waitFor(() => done.includes('el-1'), 3000, 'the completion notice');
  await client.close();
});

test.run();
