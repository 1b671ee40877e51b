import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const received: any[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    received.push(JSON.parse(body));
    res.end('ok');
  });
});

test.before(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hub = await startHub();
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/crashy', { token })).body.data.status === 'connected', 10_000, 'connected');
});
test.after(async () => {
  await hub.close();
  receiver.close();
});

test('a server that stops answering health checks is reconnected', async () => {
  const pid = (await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'pid' } })).body.data.content[0].text;
  // Freeze the server (a call that never returns in time), then run the checks directly.
  void hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'freeze', arguments: { ms: 3000 } } });
  await new Promise((r) => setTimeout(r, 100));
  await hub.app.hub.services.watchdog.healthCheck(200, 1);
  const logs = (await hub.request('GET', '/api/logs?server=crashy', { token })).body.data.map((l: any) => l.message);
  assert.ok(logs.some((m: string) => /Health check 1\/1 of crashy failed/.test(m)), logs.join('\n'));
  await waitFor(async () => {
    const r = await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'pid' } });
    return r.status === 200 && r.body.data.content[0].text !== pid;
  }, 15_000, 'a new process after the reconnect');
});

test('alert rules fire to the webhooks they name once the condition has held', async () => {
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/alerts`;
  const res = await hub.request('PUT', '/api/system-config', {
    token,
    body: { monitoring: { webhooks: [{ url, events: ['error.rate.high'] }], alerts: [{ name: 'slow-calls', condition: 'latency_p99 > 100', duration: '0s', severity: 'critical', channels: [url] }] } },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  for (let i = 0; i < 3; i++) await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'freeze', arguments: { ms: 150 } } });
  for (let i = 0; i < 12; i++) await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'nope-tool' } });
  await waitFor(() => received.some((r) => r.event === 'alert' && r.data.rule === 'slow-calls' && r.data.severity === 'critical'), 10_000, 'alert delivered');
  const bad = await hub.request('PUT', '/api/system-config', { token, body: { monitoring: { alerts: [{ name: 'x', condition: 'cpu > 5' }] } } });
  assert.is(bad.status, 400);
  assert.match(bad.body.error, /monitoring\.alerts\.0\.condition/);
});

test.run();
