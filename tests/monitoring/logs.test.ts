import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookReceiver } from '../helpers/webhooks';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { startHub, type TestHub } from '../helpers/hub';
import { wsClient } from '../helpers/trpc';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const call = (toolName: string, args: object = {}) => hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName, arguments: args } });

/** Reads an SSE response into parsed events as they come. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: ctrl.signal });
  const events: Array<{ id?: string; data: any }> = [];
  const reader = res.body!.getReader();
  let buf = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += new TextDecoder().decode(value);
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          const id = block.split('\n').find((l) => l.startsWith('id: '))?.slice(4);
          if (data) events.push({ id, data: JSON.parse(data) });
        }
      }
    } catch {
      // aborted
    }
  })();
  return { res, events, close: () => ctrl.abort() };
}

test.before(async () => {
  hub = await startHub({ env: { LOG_ROTATION: 'size', LOG_MAX_SIZE: '2k', LOG_MAX_FILES: '3' } });
  token = await hub.login();
  await hub.request('POST', '/api/servers', {
    token,
    body: { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')], env: { API_TOKEN: 'super-secret-value-123' } } },
  });
  await waitFor(async () => (await hub.request('GET', '/api/servers/crashy', { token })).body.data.status === 'connected', 10_000, 'connected');
});
test.after(() => hub.close());

test('a tool call is logged with server, tool, duration, status and user', async () => {
  await call('echo', { message: 'logged' });
  const res = await hub.request('GET', '/api/logs?type=tool_call&server=crashy', { token });
  assert.is(res.status, 200);
  const entry = res.body.data.at(-1);
  assert.is(entry.server, 'crashy');
  assert.is(entry.tool, 'echo');
  assert.is(entry.status, 'success');
  assert.is(entry.userId, 'admin');
  assert.type(entry.duration, 'number');
  assert.ok(entry.timestamp && entry.level && entry.message && entry.service);
});

test('a tool call line reaches the log file within about a second, with nothing else logged after it', async () => {
  await call('echo', { message: 'to-the-file' });
  const inFiles = async () => {
    const dir = path.join(hub.dir, 'logs');
    const names = (await readdir(dir)).filter((f) => f.endsWith('.log'));
    const texts = await Promise.all(names.map((f) => readFile(path.join(dir, f), 'utf8')));
    return texts.join('').split('\n').some((l) => l.includes('"type":"tool_call"') && l.includes('"tool":"echo"'));
  };
  await waitFor(inFiles, 3000, 'tool call line in a log file');
});

test('filters: level, server, limit, from/to; bad values are a 400 naming the field', async () => {
  for (let i = 0; i < 5; i++) await call('echo', { message: `m${i}` });
  const two = await hub.request('GET', '/api/logs?limit=2', { token });
  assert.is(two.body.data.length, 2);
  const errors = await hub.request('GET', '/api/logs?level=error', { token });
  assert.ok(errors.body.data.every((e: any) => e.level === 'error'));
  const none = await hub.request('GET', '/api/logs?server=nobody', { token });
  assert.equal(none.body.data, []);
  const future = await hub.request('GET', `/api/logs?from=${new Date(Date.now() + 60_000).toISOString()}`, { token });
  assert.equal(future.body.data, []);
  const bad = await hub.request('GET', '/api/logs?level=loud', { token });
  assert.is(bad.status, 400);
  assert.match(bad.body.error, /level/);
  const since = await hub.request('GET', '/api/logs?since=not-a-date', { token });
  assert.is(since.status, 400);
});

test('the SSE stream starts with all logs, then pushes a tool call and a server crash as they happen', async () => {
  const s = await openStream(`${hub.url}/api/logs/stream`);
  assert.is(s.res.status, 200);
  assert.match(s.res.headers.get('content-type') ?? '', /text\/event-stream/);
  await waitFor(() => s.events.length > 0, 5000, 'initial event');
  assert.is(s.events[0]!.data.type, 'initial');
  assert.ok(Array.isArray(s.events[0]!.data.logs) && s.events[0]!.data.logs.length > 0);
  await call('echo', { message: 'live' });
  await waitFor(() => s.events.some((e) => e.data.type === 'log' && e.data.log.tool === 'echo'), 5000, 'tool call event');
  await call('crash');
  await waitFor(() => s.events.some((e) => e.data.type === 'log' && /crashy is (disconnected|error)/.test(e.data.log.message)), 10_000, 'crash event');
  const lastId = s.events.at(-1)!.id!;
  s.close();
  await waitFor(async () => (await hub.request('GET', '/api/servers/crashy', { token })).body.data.status === 'connected', 15_000, 'respawned');
  // Resuming with Last-Event-ID gives only what came after.
  const r = await openStream(`${hub.url}/api/logs/stream`, { 'last-event-id': lastId });
  await waitFor(() => r.events.length > 0, 5000, 'resumed initial');
  assert.ok(r.events[0]!.data.logs.every((e: any) => e.id > Number(lastId)));
  assert.ok(r.events[0]!.data.logs.some((e: any) => /is connected/.test(e.message)));
  r.close();
  assert.is((await fetch(`${hub.url}/api/logs/stream`)).status, 401);
});

test('the tRPC subscription gets the same events from the same source', async () => {
  const { client, close } = wsClient(hub.url, token);
  const got: any[] = [];
  const sub = client.logs.stream.subscribe({ server: 'crashy', type: 'tool_call' }, { onData: (e) => void got.push(e) });
  await waitFor(() => got.length > 0, 5000, 'initial');
  assert.is(got[0].data.type, 'initial');
  await call('echo', { message: 'via trpc' });
  await waitFor(() => got.some((e) => e.data.type === 'logs' && e.data.logs.some((l: any) => /echo/.test(l.message))), 5000, 'log over trpc');
  const batch = got.find((e) => e.data.type === 'logs');
  assert.is(batch.id, String(batch.data.logs.at(-1).id));
  sub.unsubscribe();
  close();
});

test('secrets are redacted: env values marked secret and bearer tokens never reach the logs', async () => {
  const logs = hub.app.hub.services.logs;
  // The bare value, with nothing around it that a pattern could recognise: only the
  // registered secret values of the server's config can catch it.
  logs.add({ type: 'server', level: 'info', server: 'crashy', message: 'connected with super-secret-value-123 as credential' });
  logs.add({ type: 'server', level: 'info', server: 'crashy', message: 'GET /x Authorization: Bearer abcdefghijklmnop' });
  const all = JSON.stringify((await hub.request('GET', '/api/logs', { token })).body);
  assert.not.match(all, /super-secret-value-123|abcdefghijklmnop/);
  assert.match(all, /connected with \[REDACTED\] as credential/);
  // Tool-call lines skip the scan of Hub's own text, but not the upstream's error text.
  hub.app.hub.services.activity.record({ server: 'crashy', tool: 'echo', duration: 1, ok: false, error: 'upstream said super-secret-value-123' });
  const failed = (await hub.request('GET', '/api/logs?type=tool_call&level=error', { token })).body.data.at(-1);
  assert.is(failed.message.includes('super-secret-value-123'), false);
  assert.match(failed.message, /upstream said \[REDACTED\]/);
});

test('aggregate by server and hour; DELETE clears the window', async () => {
  const byServer = await hub.request('GET', '/api/logs/aggregate?groupBy=server', { token });
  assert.ok(byServer.body.data.counts.crashy > 0);
  const byHour = await hub.request('GET', '/api/logs/aggregate?groupBy=hour&type=tool_call', { token });
  assert.ok(Object.keys(byHour.body.data.counts).every((k) => /T\d\d:00:00Z$/.test(k)));
  const del = await hub.request('DELETE', '/api/logs', { token });
  assert.is(del.status, 200);
  assert.is(del.body.success, true);
  assert.type(del.body.message, 'string');
  assert.equal((await hub.request('GET', '/api/logs?type=tool_call', { token })).body.data, []);
});

test('log files rotate by size and keep at most LOG_MAX_FILES old ones', async () => {
  for (let i = 0; i < 200; i++) hub.app.hub.services.logs.add({ type: 'hub', level: 'info', message: `filler ${i} ${'x'.repeat(100)}` });
  await hub.app.hub.services.logs.close();
  await new Promise((r) => setTimeout(r, 300));
  const files = (await readdir(path.join(hub.dir, 'logs'))).filter((f) => f.endsWith('.log'));
  assert.ok(files.length >= 2, `rotated (${files.join(', ')})`);
  assert.ok(files.length <= 4, `at most 3 old files plus the active one (${files.join(', ')})`);
});

test('the scrape output parses as Prometheus text and counts tool calls', async () => {
  const res = await fetch(`${hub.url}/api/monitoring/scrape`, { headers: { authorization: `Bearer ${token}` } });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  const families = parsePrometheus(await res.text());
  const calls = families.find((f: any) => f.name === 'hub_tool_calls_total');
  assert.ok(calls, 'hub_tool_calls_total present');
  assert.ok(calls.metrics.some((m: any) => m.labels.server === 'crashy' && m.labels.tool === 'echo' && Number(m.value) > 0));
  for (const name of ['hub_tool_call_duration_seconds', 'hub_upstream_connected', 'hub_mcp_sessions', 'hub_http_requests_total', 'hub_process_cpu_user_seconds_total']) {
    assert.ok(families.some((f: any) => f.name === name), name);
  }
});

test('monitoring reads: overview, metrics, errors, health, database, slow queries, custom metrics', async () => {
  const get = (u: string) => hub.request('GET', u, { token });
  const overview = (await get('/api/monitoring/overview')).body.data;
  assert.is(overview.servers.total, 1);
  assert.ok(overview.tools > 0);
  const metrics = (await get('/api/monitoring/metrics?server=crashy&range=1h')).body.data;
  assert.ok(metrics.calls > 0 && metrics.latencyMs.p50 >= 0);
  const errors = (await get('/api/monitoring/errors?groupBy=tool&since=1h&details=true')).body.data;
  assert.ok(errors.total >= 1 && errors.counts['crashy/crash'] >= 1 && Array.isArray(errors.errors));
  assert.is((await get('/api/monitoring/health')).body.data.status, 'ok');
  const db = (await get('/api/monitoring/database')).body.data;
  assert.ok(db.writes > 0 && db.kind === 'lowdb');
  assert.ok(Array.isArray((await get('/api/monitoring/slow-queries')).body.data.toolCalls));
  const rec = await hub.request('POST', '/api/monitoring/metrics', { token, body: { name: 'deploys', type: 'counter', tags: { env: 'test' }, value: 2 } });
  assert.is(rec.status, 200);
  const text = await (await fetch(`${hub.url}/api/monitoring/scrape`, { headers: { authorization: `Bearer ${token}` } })).text();
  assert.match(text, /hub_custom_deploys\{env="test"\} 2/);
  const bad = await hub.request('POST', '/api/monitoring/metrics', { token, body: { name: 'bad name', value: 1 } });
  assert.is(bad.status, 400);
  assert.match(bad.body.error, /name/);
});

test('a webhook receiver on loopback gets server.down when a stdio server dies', async () => {
  const receiver = await webhookReceiver();
  const { url, received } = receiver;
  const cfg = await hub.request('PUT', '/api/system-config', { token, body: { monitoring: { webhooks: [{ url, events: ['server.down', 'server.up'], headers: { 'x-hook': 'yes' } }] } } });
  assert.is(cfg.status, 200, JSON.stringify(cfg.body));
  await call('crash');
  await waitFor(() => received.some((r) => r.body.event === 'server.down'), 10_000, 'server.down delivered');
  const down = received.find((r) => r.body.event === 'server.down')!;
  assert.is(down.body.data.server, 'crashy');
  assert.is(down.headers['x-hook'], 'yes');
  await waitFor(() => received.some((r) => r.body.event === 'server.up'), 15_000, 'server.up delivered');
  await receiver.close();
});

test.run();
