/**
 * SSE resumability on Hub's own streams (SEP-1699): a priming event with an id
 * and a retry field, ids on every event, and a client that lost its answer
 * stream mid-call resumes it with GET and Last-Event-ID.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
let session = '';

const headers = () => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
  ...(session ? { 'mcp-session-id': session } : {}),
});

type Event = { id?: string; retry?: string; data: string };

/** Reads SSE events until `until` says stop; returns them and the reader (still open). */
async function readEvents(res: Response, until: (events: Event[]) => boolean): Promise<Event[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Event[] = [];
  let buf = '';
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const e: Event = { data: '' };
      for (const line of block.split('\n')) {
        const [k, ...rest] = line.split(':');
        const v = rest.join(':').trimStart();
        if (k === 'id') e.id = v;
        else if (k === 'retry') e.retry = v;
        else if (k === 'data') e.data += v;
      }
      events.push(e);
    }
  }
  await reader.cancel().catch(() => undefined);
  return events;
}

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'dyn', config: { command: process.execPath, args: [fixture('dynamic.mjs')] } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/dyn', { token })).body.data.status === 'connected', 10_000, 'dyn connected');
  const init = await fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  session = init.headers.get('mcp-session-id')!;
  await init.text();
  await fetch(`${hub.url}/mcp`, { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
});
test.after(() => hub.close());

test('a dropped answer stream resumes with Last-Event-ID: missed events, then the result', async () => {
  const ctrl = new AbortController();
  const res = await fetch(`${hub.url}/mcp`, {
    method: 'POST',
    headers: headers(),
    signal: ctrl.signal,
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'dyn-slow', arguments: { steps: 4, ms: 250 }, _meta: { progressToken: 'p1' } } }),
  });
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const first = await readEvents(res, (ev) => ev.length >= 2);
  ctrl.abort();
  const [priming, progress] = first as [Event, Event];
  assert.is(priming.data, '', 'the priming event carries no message');
  assert.ok(priming.id && priming.retry, 'the priming event has an id and a retry field');
  assert.match(progress.data, /notifications\/progress/);
  assert.ok(progress.id);
  // The call goes on while the client is away; it comes back for the rest.
  await new Promise((r) => setTimeout(r, 700));
  const again = await fetch(`${hub.url}/mcp`, { method: 'GET', headers: { ...headers(), accept: 'text/event-stream', 'last-event-id': progress.id! } });
  assert.is(again.status, 200);
  const rest = await readEvents(again, (ev) => ev.some((e) => e.data.includes('"id":7')));
  const messages = rest.map((e) => JSON.parse(e.data));
  assert.equal(messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress), [2, 3, 4], 'every missed progress event, once');
  assert.match(JSON.stringify(messages.at(-1)), /done after 4 steps/);
  const ids = rest.map((e) => e.id);
  assert.is(new Set(ids).size, ids.length, 'event ids are unique');
});

test('an unknown Last-Event-ID opens the ordinary stream, with a retry field', async () => {
  const res = await fetch(`${hub.url}/mcp`, { method: 'GET', headers: { ...headers(), accept: 'text/event-stream', 'last-event-id': '999_3' } });
  assert.is(res.status, 200);
  const [first] = await readEvents(res, (ev) => ev.length >= 1);
  assert.ok(first?.retry, 'retry field');
});

test.run();
