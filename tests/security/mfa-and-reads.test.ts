/**
 * MFA can only be managed by the person, from a session, with proof; and
 * every read of activity (logs, their aggregates and streams, calls,
 * monitoring) holds only what the caller may see.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret, TOTP } from 'otpauth';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';
import { wsClient } from '../helpers/trpc';

let hub: TestHub;
let admin: string;
const stdio = { type: 'stdio', command: process.execPath, args: [fixture('crashy.mjs')] };

test.before(async () => {
  hub = await startHub();
  admin = await hub.login();
  for (const name of ['mine', 'theirs']) await hub.request('POST', '/api/servers', { token: admin, body: { name, config: stdio } });
  await waitFor(async () => (await hub.request('GET', '/api/servers', { token: admin })).body.data.every((s: any) => s.status === 'connected'), 15_000, 'servers connected');
});
test.after(() => hub.close());

test('an API key cannot enable MFA for its owner, even with every permission', async () => {
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'owner', password: 'owner-pass-1', role: 'admin' } });
  const t = await hub.login('owner', 'owner-pass-1');
  const key = (await hub.request('POST', '/api/auth/api-keys', { token: t, body: { name: 'all', permissions: ['servers:read', 'users:write', 'config:write'] } })).body.data.key;
  for (const path of ['/api/auth/mfa/enable', '/api/auth/mfa/verify', '/api/auth/mfa/disable']) {
    const res = await hub.request('POST', path, { headers: { 'x-api-key': key }, body: { type: 'totp', password: 'owner-pass-1', code: '123456' } });
    assert.is(res.status, 403, path);
  }
  const file = JSON.parse(await (await import('node:fs/promises')).readFile(hub.settingsPath, 'utf8'));
  assert.is(file.users.find((u: any) => u.username === 'owner').mfa, undefined);
});

test('MFA needs the password to start and the current code to replace or switch off an active secret', async () => {
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'mia', password: 'mia-pass-1' } });
  const t = await hub.login('mia', 'mia-pass-1');
  assert.is((await hub.request('POST', '/api/auth/mfa/enable', { token: t, body: { type: 'totp' } })).status, 400);
  assert.is((await hub.request('POST', '/api/auth/mfa/enable', { token: t, body: { type: 'totp', password: 'wrong-pass' } })).status, 400);
  const en = await hub.request('POST', '/api/auth/mfa/enable', { token: t, body: { type: 'totp', password: 'mia-pass-1' } });
  assert.is(en.status, 200);
  const totp = new TOTP({ secret: Secret.fromBase32(en.body.data.secret) });
  assert.is((await hub.request('POST', '/api/auth/mfa/verify', { token: t, body: { code: totp.generate() } })).status, 200);
  // Active now: the password alone no longer replaces it, nor switches it off.
  const replace = await hub.request('POST', '/api/auth/mfa/enable', { token: t, body: { type: 'totp', password: 'mia-pass-1' } });
  assert.is(replace.status, 400);
  assert.match(replace.body.error, /^code:/);
  assert.is((await hub.request('POST', '/api/auth/mfa/disable', { token: t, body: { code: '000000' } })).status, 400);
  const next = totp.generate({ timestamp: Date.now() + 30_000 });
  const replaced = await hub.request('POST', '/api/auth/mfa/enable', { token: t, body: { type: 'totp', code: next } });
  assert.is(replaced.status, 200, JSON.stringify(replaced.body));
});

test('wrong MFA codes are rate-limited like logins', async () => {
  await hub.request('PUT', '/api/system-config', { token: admin, body: { rateLimit: { loginMax: 3 } } });
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'rex', password: 'rex-pass-1' } });
  const t = await hub.login('rex', 'rex-pass-1');
  assert.is((await hub.request('POST', '/api/auth/mfa/enable', { token: t, body: { type: 'totp', password: 'rex-pass-1' } })).status, 200);
  const codes = ['000001', '000002', '000003', '000004'];
  const statuses = [];
  for (const code of codes) statuses.push((await hub.request('POST', '/api/auth/mfa/verify', { token: t, body: { code } })).status);
  assert.equal(statuses, [400, 400, 400, 429]);
  // Guessing the password through enable counts the same way.
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'sam', password: 'sam-pass-1' } });
  const s = await hub.login('sam', 'sam-pass-1');
  const tries = [];
  for (let i = 0; i < 4; i++) tries.push((await hub.request('POST', '/api/auth/mfa/enable', { token: s, body: { type: 'totp', password: `guess-${i}` } })).status);
  assert.equal(tries, [400, 400, 400, 429]);
  await hub.request('PUT', '/api/system-config', { token: admin, body: { rateLimit: { loginMax: 10 } } });
});

test("a viewer given one server reads only that server's logs and its own calls, on every door", async () => {
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'vic', password: 'vic-pass-1', role: 'user', servers: ['mine'] } });
  const t = await hub.login('vic', 'vic-pass-1');
  const live = wsClient(hub.url, t);
  const streamed: unknown[] = [];
  const sub = live.client.logs.stream.subscribe({}, { onData: (d) => streamed.push(d) });
  const sse = await fetch(hub.url + '/api/logs/stream', { headers: { authorization: `Bearer ${t}` } });
  const reader = sse.body!.getReader();
  let sseText = '';
  void (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) sseText += new TextDecoder().decode(r.value);
  })().catch(() => undefined);
  await hub.request('POST', '/api/tools/call/theirs', { token: admin, body: { toolName: 'echo', arguments: { message: 'their-call' } } });
  await hub.request('POST', '/api/tools/call/mine', { token: admin, body: { toolName: 'echo', arguments: { message: 'admin-on-mine' } } });
  await hub.request('POST', '/api/tools/call/mine', { token: t, body: { toolName: 'echo', arguments: { message: 'vic-call' } } });
  await waitFor(() => sseText.includes('vic'), 3000, "vic's own call on the SSE stream");
  await waitFor(() => JSON.stringify(streamed).includes('"userId":"vic"'), 3000, "vic's own call on logs.stream");
  const rest = (await hub.request('GET', '/api/logs?limit=5000', { token: t })).body.data as Array<{ server?: string; type: string; userId?: string }>;
  const aggregate = (await hub.request('GET', '/api/logs/aggregate?groupBy=server', { token: t })).body.data.counts;
  const everything = [...rest, ...streamed.flatMap((e: any) => e.data?.logs ?? [])];
  assert.ok(rest.some((e) => e.userId === 'vic'), 'vic sees its own call');
  assert.ok(everything.every((e: any) => e.server === 'mine'), 'vic reads entries of a server it cannot see, or Hub-wide ones');
  assert.ok(everything.every((e: any) => e.type !== 'tool_call' || e.userId === 'vic'), "vic reads another user's calls");
  assert.equal(Object.keys(aggregate), ['mine']);
  assert.not.match(sseText, /theirs|their-call|"userId":"admin"/);
  // The admin still reads everything.
  const all = (await hub.request('GET', '/api/logs?limit=5000', { token: admin })).body.data;
  assert.ok(all.some((e: any) => e.server === 'theirs') && all.some((e: any) => e.userId === 'admin'));
  sub.unsubscribe();
  live.close();
  await reader.cancel();
});

test.run();
