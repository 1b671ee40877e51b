/** The credential-free tool routes of MCPHub's contract can be closed: then they need tools:execute and the caller's access. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let admin: string;

test.before(async () => {
  hub = await startHub();
  admin = await hub.login();
  await hub.request('POST', '/api/servers', { token: admin, body: { name: 'crashy', config: { type: 'stdio', command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/crashy', { token: admin })).body.data.status === 'connected', 15_000, 'connected');
});
test.after(() => hub.close());

test('open by default, as the contract has them; closed by routing.openToolRoutes: false', async () => {
  assert.is((await hub.request('GET', '/api/tools/crashy/echo?message=hi')).status, 200);
  assert.is((await hub.request('PUT', '/api/system-config', { token: admin, body: { routing: { openToolRoutes: false } } })).status, 200);
  assert.is((await hub.request('GET', '/api/tools/crashy/echo?message=hi')).status, 401);
  assert.is((await hub.request('POST', '/api/tools/crashy/echo', { body: { message: 'hi' } })).status, 401);
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'vee', password: 'vee-pass-1', role: 'viewer', servers: ['crashy'] } });
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'una', password: 'una-pass-1', role: 'user' } });
  assert.is((await hub.request('GET', '/api/tools/crashy/echo?message=hi', { token: await hub.login('vee', 'vee-pass-1') })).status, 403);
  assert.is((await hub.request('GET', '/api/tools/crashy/echo?message=hi', { token: await hub.login('una', 'una-pass-1') })).status, 404);
  const ok = await hub.request('GET', '/api/tools/crashy/echo?message=hi', { token: admin });
  assert.is(ok.status, 200);
  assert.match(JSON.stringify(ok.body), /echo: hi/);
});

test.run();
