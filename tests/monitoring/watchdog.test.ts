import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';
import { webhookReceiver } from '../helpers/webhooks';

let hub: TestHub;
let token: string;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

test.before(async () => {
  receiver = await webhookReceiver();
  hub = await startHub();
  token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'crashy', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/crashy', { token })).body.data.status === 'connected', 10_000, 'connected');
});
test.after(async () => {
  await hub.close();
  await receiver.close();
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
  const { url } = receiver;
  const res = await hub.request('PUT', '/api/system-config', {
    token,
    body: { monitoring: { webhooks: [{ url, events: ['error.rate.high'] }], alerts: [{ name: 'slow-calls', condition: 'latency_p99 > 100', duration: '0s', severity: 'critical', channels: [url] }] } },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  for (let i = 0; i < 3; i++) await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'freeze', arguments: { ms: 150 } } });
  for (let i = 0; i < 12; i++) await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'nope-tool' } });
  await waitFor(() => receiver.received.some(({ body: r }) => r.event === 'alert' && r.data.rule === 'slow-calls' && r.data.severity === 'critical'), 10_000, 'alert delivered');
  const bad = await hub.request('PUT', '/api/system-config', { token, body: { monitoring: { alerts: [{ name: 'x', condition: 'cpu > 5' }] } } });
  assert.is(bad.status, 400);
  assert.match(bad.body.error, /monitoring\.alerts\.0\.condition/);
});

test.run();
