/** Every JSON-RPC request gets an answer: an id Hub cannot echo back is refused at once with -32600. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';

let hub: TestHub;
let token: string;
let session: string;
const headers = () => ({ authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...(session ? { 'mcp-session-id': session } : {}) });

async function post(body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(hub.url + '/api/mcp', { method: 'POST', headers: headers(), body, signal: AbortSignal.timeout(3000) });
  return { status: res.status, text: await res.text() };
}

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  const init = await fetch(hub.url + '/api/mcp', {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  session = init.headers.get('mcp-session-id')!;
  await init.text();
  await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
});
test.after(() => hub.close());

test('ping with a fractional, unsafe, null or object id is answered -32600, in a live session', async () => {
  for (const id of ['1.5', '9007199254740993', 'null', '{}', '{"a":1}', '[1]', 'true']) {
    for (const body of [`{"jsonrpc":"2.0","id":${id},"method":"ping"}`, `[{"jsonrpc":"2.0","id":${id},"method":"ping"}]`]) {
      const res = await post(body);
      assert.is(res.status, 400, `${body}: ${res.text}`);
      assert.is(JSON.parse(res.text).error.code, -32600, body);
    }
  }
  // Ordinary ids still work, through the fast lane too.
  for (const id of ['7', '"abc"', '9007199254740991']) {
    const res = await post(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    assert.is(res.status, 200, res.text);
    assert.is(JSON.stringify(JSON.parse(res.text).id), id);
  }
});

test('the legacy SSE messages endpoint refuses them too', async () => {
  const ctrl = new AbortController();
  const stream = await fetch(hub.url + '/sse', { headers: { authorization: `Bearer ${token}` }, signal: ctrl.signal });
  const reader = stream.body!.getReader();
  let text = '';
  while (!/sessionId=/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  const endpoint = /data: (\S+)/.exec(text)![1]!;
  const res = await fetch(new URL(endpoint, hub.url), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', signal: AbortSignal.timeout(3000) });
  assert.ok(res.status >= 400 && res.status < 500, String(res.status));
  ctrl.abort();
});

test.run();
