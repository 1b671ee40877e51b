import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';
import { kill, startProcess } from '../helpers/spawn';

let hub: TestHub;
let token: string;
let upstream: ChildProcess;

test.before(async () => {
  const p = await startProcess(process.execPath, [fixture('counter-http.mjs')], {}, /PORT=\d+/);
  upstream = p.child;
  hub = await startHub();
  token = await hub.login();
  const url = `http://127.0.0.1:${/PORT=(\d+)/.exec(p.output())![1]}/mcp`;
  await hub.request('POST', '/api/servers', { token, body: { name: 'counter', config: { type: 'streamable-http', url } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/counter', { token })).body.data.status === 'connected', 10_000, 'connected');
});
test.after(async () => {
  await hub.close();
  await kill(upstream);
});

const count = async (sessionId?: string) => {
  const r = await hub.request('POST', '/api/tools/call/counter', {
    token,
    body: { toolName: 'increment' },
    headers: sessionId ? { 'x-session-id': sessionId } : {},
  });
  assert.is(r.status, 200, JSON.stringify(r.body));
  if (sessionId) assert.is(r.headers.get('x-session-id'), sessionId);
  return Number(r.body.data.content[0].text);
};

test('x-session-id keeps upstream session state across REST calls, one state per id', async () => {
  assert.is(await count('alpha'), 1);
  assert.is(await count('alpha'), 2);
  assert.is(await count('beta'), 1);
  assert.is(await count('alpha'), 3);
});

test('calls without x-session-id share the hub connection', async () => {
  const a = await count();
  const b = await count();
  assert.is(b, a + 1);
});

test.run();
