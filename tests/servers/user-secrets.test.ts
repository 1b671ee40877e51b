/**
 * Per-user upstream credentials: a server's headers or env use
 * `${user.secret.NAME}`; each user (or API key) stores their own value,
 * write-only, and their calls reach the upstream with it, over connections
 * never shared with callers whose credentials differ.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { addConnectedServer, startHub, type TestHub } from '../helpers/hub';
import { agent, fixture } from '../helpers/mcp';
import { kill, startProcess } from '../helpers/spawn';
import { isTRPCError, wsClient } from '../helpers/trpc';

let hub: TestHub;
let admin: string;
let upstream: ChildProcess;
const tokens = {} as { alice: string; bob: string; carol: string };
const text = (r: any) => r.content?.[0]?.text ?? r.body?.data?.content?.[0]?.text;
const whoamiRest = async (token: string) => JSON.parse(text(await hub.request('POST', '/api/tools/call/personal', { token, body: { toolName: 'whoami' } })));

test.before(async () => {
  const p = await startProcess(process.execPath, [fixture('echo-header.mjs')], {}, /PORT=\d+/);
  upstream = p.child;
  const url = `http://127.0.0.1:${/PORT=(\d+)/.exec(p.output())![1]}/mcp`;
  hub = await startHub();
  admin = await hub.login();
  await addConnectedServer(hub, admin, 'personal', { type: 'streamable-http', url, headers: { 'x-api-key': '${user.secret.ECHO_KEY}' } });
  await addConnectedServer(hub, admin, 'local', { command: process.execPath, args: [fixture('crashy.mjs')], env: { TOKEN: '${user.secret.ECHO_KEY}' } });
  for (const name of ['alice', 'bob', 'carol']) {
    assert.is((await hub.request('POST', '/api/users', { token: admin, body: { username: name, password: `${name}-pass-123`, role: 'user', servers: ['personal', 'local'] } })).status, 200);
    tokens[name as keyof typeof tokens] = await hub.login(name, `${name}-pass-123`);
  }
});
test.after(async () => {
  await hub.close();
  await kill(upstream);
});

test('each user stores their own secret write-only, through REST and tRPC', async () => {
  const put = await hub.request('PUT', '/api/auth/secrets/ECHO_KEY', { token: tokens.alice, body: { value: 'alice-key' } });
  assert.is(put.status, 200, JSON.stringify(put.body));
  const { client, close } = wsClient(hub.url, tokens.bob);
  try {
    await client.secrets.set.mutate({ name: 'ECHO_KEY', value: 'bob-key' });
    const mine = await client.secrets.list.query();
    assert.equal(mine.map((s) => [s.name, s.set, s.servers]), [['ECHO_KEY', true, ['personal', 'local']]]);
    assert.not.ok(JSON.stringify(mine).includes('bob-key'), 'never read back');
  } finally {
    close();
  }
  assert.equal((await hub.request('GET', '/api/servers/personal', { token: admin })).body.data.callerSecrets, ['ECHO_KEY'], 'the server view names what it takes from callers');
  const carol = (await hub.request('GET', '/api/auth/secrets', { token: tokens.carol })).body.data;
  assert.equal(carol.map((s: any) => [s.name, s.set]), [['ECHO_KEY', false]], 'what a server needs, not set yet');
  for (const url of ['/api/settings', '/api/mcp-settings/export?includeSecrets=true', '/api/logs']) {
    const body = JSON.stringify((await hub.request('GET', url, { token: admin })).body);
    assert.not.ok(body.includes('alice-key') || body.includes('bob-key'), `${url} shows no one's secret`);
  }
  const bad = await hub.request('PUT', '/api/auth/secrets/not-a-name', { token: tokens.alice, body: { value: 'x' } });
  assert.is(bad.status, 400);
  assert.match(bad.body.message, /name/);
  const split = await hub.request('PUT', '/api/auth/secrets/ECHO_KEY', { token: tokens.alice, body: { value: 'k\r\nx-admin: yes' } });
  assert.is(split.status, 400, 'no header splitting through a secret');
  assert.match(split.body.message, /value/);
});

test("each caller's calls carry their own value, over an upstream session of their own, on REST and MCP", async () => {
  const a = await whoamiRest(tokens.alice);
  assert.is(a.key, 'alice-key');
  const c = await agent(`${hub.url}/mcp`, { token: tokens.bob });
  const b = JSON.parse(text(await c.callTool({ name: 'personal-whoami', arguments: {} })));
  await c.close();
  assert.is(b.key, 'bob-key');
  assert.is.not(a.session, b.session, 'sessions are never shared between different credentials');
  assert.is((await whoamiRest(tokens.alice)).session, a.session, "a caller's connection is kept between calls");
});

test('a caller without the secret gets a clear error naming it on REST, MCP and tRPC', async () => {
  const open = await hub.request('POST', '/api/tools/personal/whoami', {});
  assert.is(open.status, 401, 'an open tool route has no caller to take a secret from');
  assert.match(open.body.message, /uses each caller's own credentials/);
  const rest = await hub.request('POST', '/api/tools/call/personal', { token: tokens.carol, body: { toolName: 'whoami' } });
  assert.is(rest.status, 400);
  assert.match(rest.body.message, /ECHO_KEY/);
  const c = await agent(`${hub.url}/mcp`, { token: tokens.carol });
  const r = await c.callTool({ name: 'personal-whoami', arguments: {} });
  await c.close();
  assert.is(r.isError, true);
  assert.match(text(r), /needs your secret ECHO_KEY/);
  const { client, close } = wsClient(hub.url, tokens.carol);
  try {
    await client.tools.callTool.mutate({ server: 'personal', toolName: 'whoami', arguments: {} });
    assert.unreachable('no secret, no call');
  } catch (err) {
    assert.ok(isTRPCError(err) && /ECHO_KEY/.test(err.message), String(err));
  } finally {
    close();
  }
});

test("an API key may hold its own value, used before its user's", async () => {
  const created = await hub.request('POST', '/api/auth/api-keys', { token: tokens.alice, body: { name: 'robot', permissions: ['tools:execute', 'servers:execute'] } });
  const key = created.body.data.key as string;
  assert.is((await whoamiRest(key)).key, 'alice-key', "without its own, the user's");
  const listed = (await hub.request('GET', '/api/auth/secrets', { token: key })).body.data;
  assert.equal(listed.map((s: any) => [s.name, s.set, s.inherited]), [['ECHO_KEY', true, true]]);
  await hub.request('PUT', '/api/auth/secrets/ECHO_KEY', { token: key, body: { value: 'robot-key' } });
  assert.is((await whoamiRest(key)).key, 'robot-key');
  assert.is((await whoamiRest(tokens.alice)).key, 'alice-key');
  // Its owner manages it from her own session too; nobody else can.
  const id = created.body.data.id as string;
  assert.is((await hub.request('PUT', `/api/auth/api-keys/${id}/secrets/ECHO_KEY`, { token: tokens.alice, body: { value: 'robot-key-2' } })).status, 200);
  assert.is((await whoamiRest(key)).key, 'robot-key-2');
  assert.is((await hub.request('PUT', `/api/auth/api-keys/${id}/secrets/ECHO_KEY`, { token: tokens.bob, body: { value: 'bobs-choice' } })).status, 404, "not bob's key");
  assert.is((await hub.request('PUT', `/api/auth/api-keys/${id}/secrets/ECHO_KEY`, { token: admin, body: { value: 'admins-choice' } })).status, 404, 'not even an admin chooses what her key sends');
  assert.is((await whoamiRest(key)).key, 'robot-key-2');
  assert.is((await hub.request('DELETE', `/api/auth/api-keys/${id}/secrets/ECHO_KEY`, { token: tokens.alice })).status, 200);
  assert.is((await whoamiRest(key)).key, 'alice-key', "back to its user's");
});

test('stdio servers get a process per credential, and a deleted user leaves no secret to a namesake', async () => {
  const call = async (token: string, toolName: string, args = {}) => text(await hub.request('POST', '/api/tools/call/local', { token, body: { toolName, arguments: args } }));
  assert.is(await call(tokens.alice, 'env', { name: 'TOKEN' }), 'alice-key');
  assert.is(await call(tokens.bob, 'env', { name: 'TOKEN' }), 'bob-key');
  assert.is.not(await call(tokens.alice, 'pid'), await call(tokens.bob, 'pid'), 'one process each');
  assert.is((await hub.request('DELETE', '/api/users/bob', { token: admin })).status, 200);
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'bob', password: 'bob-pass-456', role: 'user', servers: ['personal', 'local'] } });
  const again = await hub.request('POST', '/api/tools/call/local', { token: await hub.login('bob', 'bob-pass-456'), body: { toolName: 'pid' } });
  assert.is(again.status, 400, 'the new bob has no secret');
});

test('only admins may make a server send callers their secrets, and only in headers and env', async () => {
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'mia', password: 'mia-pass-123', role: 'manager' } });
  const mia = await hub.login('mia', 'mia-pass-123');
  const grab = await hub.request('POST', '/api/servers', { token: mia, body: { name: 'grabber', config: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp', headers: { 'x-api-key': '${user.secret.ECHO_KEY}' } } } });
  assert.is(grab.status, 403);
  assert.match(grab.body.message, /user\.secret\.ECHO_KEY/);
  const inUrl = await hub.request('POST', '/api/servers', { token: admin, body: { name: 'leaky', config: { type: 'streamable-http', url: 'http://127.0.0.1:9/${user.secret.ECHO_KEY}' } } });
  assert.is(inUrl.status, 400);
  assert.match(inUrl.body.message, /url/);
});

test.run();
