import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, waitFor } from '../helpers/mcp';

// Plain tool calls skip the SDK's Protocol on both sides of Hub; calls with a
// progress token go through it. These check that both behave the same.
let hub: TestHub;
let token: string;
let client: Client;
const text = (r: any) => r.content?.[0]?.text as string;
const withProgress = { onprogress: () => undefined };
const lastCancel = async () => text(await client.callTool({ name: 'dyn-last-cancel', arguments: {} }));

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'dyn', config: { command: process.execPath, args: [fixture('dynamic.mjs')], timeout: 400 } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/dyn', { token })).body.data.status === 'connected', 10_000, 'dyn connected');
  client = await agent(`${hub.url}/api/mcp`, { token });
});
test.after(async () => {
  await client.close();
  await hub.close();
});

test('a call that outlasts the server timeout is a JSON-RPC error -32001, and the upstream is told to stop', async () => {
  for (const options of [undefined, withProgress]) {
    const started = Date.now();
    const err = await client.callTool({ name: 'dyn-slow', arguments: { steps: 1, ms: 3000 } }, undefined, options).then(
      (r) => assert.unreachable(`a result: ${JSON.stringify(r)}`),
      (e) => e,
    );
    assert.instance(err, McpError);
    assert.is(err.code, ErrorCode.RequestTimeout);
    assert.is(err.message, 'MCP error -32001: Request timed out', 'the message is not wrapped twice');
    assert.ok(Date.now() - started < 2500, 'answered at the timeout, not when the tool finished');
    assert.match(await waitFor(async () => /timed out/i.test(await lastCancel()) && lastCancel(), 3000, 'upstream cancelled'), /timed out/i);
  }
});

test('an agent that cancels its call cancels it upstream, with or without progress', async () => {
  for (const [i, options] of [{}, withProgress].entries()) {
    const ctrl = new AbortController();
    const call = client.callTool({ name: 'dyn-slow', arguments: { steps: 1, ms: 3000 } }, undefined, { ...options, signal: ctrl.signal });
    setTimeout(() => ctrl.abort(`agent gave up ${i}`), 100);
    await call.then(
      () => assert.unreachable('a cancelled call does not resolve'),
      (err) => assert.match(String(err), /gave up/),
    );
    assert.is(await waitFor(async () => (await lastCancel()) === `agent gave up ${i}` && `agent gave up ${i}`, 3000, 'cancel reached upstream'), `agent gave up ${i}`);
  }
  // The session is still good after cancellations.
  assert.match(text(await client.callTool({ name: 'dyn-slow', arguments: { steps: 1, ms: 1 } })), /done after 1/);
});

test('unknown tools and bad params are the same JSON-RPC errors either way', async () => {
  for (const options of [undefined, withProgress]) {
    const err = await client.callTool({ name: 'dyn-nope', arguments: {} }, undefined, options).catch((e) => e);
    assert.instance(err, McpError);
    assert.is(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /Tool dyn-nope not found/);
  }
  // Arguments that are not an object: an invalid-params error naming the field.
  const res = await fetch(`${hub.url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': client.transport!.sessionId! } as never,
    body: JSON.stringify({ jsonrpc: '2.0', id: 'bad-1', method: 'tools/call', params: { name: 'dyn-slow', arguments: [1, 2] } }),
  });
  const body = await res.text();
  assert.match(body, /"id":"bad-1"/);
  assert.match(body, /"code":-32602/, body);
  assert.match(body, /params\.arguments must be an object/);
});

test('a lone answer is a JSON body; an answer with notifications before it is an SSE stream', async () => {
  const post = (body: object) =>
    fetch(`${hub.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': client.transport!.sessionId! } as never,
      body: JSON.stringify(body),
    });
  const plain = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'dyn-slow', arguments: { steps: 1, ms: 1 } } });
  assert.match(plain.headers.get('content-type')!, /application\/json/);
  assert.equal(await plain.json(), { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'done after 1 steps' }] } });
  const tracked = await post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'dyn-slow', arguments: { steps: 2, ms: 1 }, _meta: { progressToken: 'p8' } } });
  assert.match(tracked.headers.get('content-type')!, /text\/event-stream/);
  const text = await tracked.text();
  assert.match(text, /^id: \S+\nretry: \d+\ndata: \n\n/, 'a priming event first (SEP-1699)');
  const events = text.split('\n').filter((l) => l.startsWith('data: ') && l.length > 6).map((l) => JSON.parse(l.slice(6)));
  assert.equal(events.map((e) => e.method ?? 'result'), ['notifications/progress', 'notifications/progress', 'result']);
  assert.is(events[2].id, 8);
});

test('results are the same with and without progress, exactly as the upstream sent them', async () => {
  const plain = await client.callTool({ name: 'dyn-slow', arguments: { steps: 2, ms: 1 } });
  const tracked = await client.callTool({ name: 'dyn-slow', arguments: { steps: 2, ms: 1 } }, undefined, withProgress);
  assert.equal(plain, tracked);
  assert.equal(plain, { content: [{ type: 'text', text: 'done after 2 steps' }] });
});

test.run();
