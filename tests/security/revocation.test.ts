/**
 * A credential that stops being valid stops working everywhere at once:
 * REST, the WebSocket, MCP sessions, and the live feeds already open.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTRPCClient, createWSClient, wsLink } from '@trpc/client';
import WebSocket from 'ws';
import type { AppRouter } from '@hub/server';
import { ADMIN, startHub, type TestHub } from '../helpers/hub';
import { agent, fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let admin: string;
const cleanups: Array<() => unknown> = [];

/** Passes when `run` fails with a message matching `re`. */
async function rejects(run: () => Promise<unknown>, re?: RegExp) {
  try {
    await run();
  } catch (err) {
    if (re) assert.match(String((err as Error).message), re);
    return;
  }
  assert.unreachable('it did not fail');
}
const stdio = { type: 'stdio', command: process.execPath, args: [fixture('crashy.mjs')] };

function ws(token: string) {
  const client = createWSClient({ url: hub.url.replace(/^http/, 'ws') + '/trpc', WebSocket: WebSocket as never, connectionParams: { token }, retryDelayMs: () => 100 });
  cleanups.push(() => client.close());
  return { trpc: createTRPCClient<AppRouter>({ links: [wsLink({ client })] }), close: () => client.close() };
}

/** A subscription's events and how it ended, collected as they come. */
function watch(sub: (h: { onData: (d: unknown) => void; onError: (e: unknown) => void; onComplete: () => void }) => { unsubscribe(): void }) {
  const state = { events: [] as unknown[], ended: null as string | null, stop: () => undefined as void };
  const s = sub({ onData: (d) => state.events.push(d), onError: (e) => (state.ended = `error: ${String((e as Error).message)}`), onComplete: () => (state.ended ??= 'complete') });
  state.stop = () => s.unsubscribe();
  return state;
}

const user = async (username: string, extra: object = {}) => {
  const res = await hub.request('POST', '/api/users', { token: admin, body: { username, password: `${username}-pass-1`, ...extra } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return hub.login(username, `${username}-pass-1`);
};

test.before(async () => {
  hub = await startHub();
  admin = await hub.login();
  await hub.request('POST', '/api/servers', { token: admin, body: { name: 'alpha', config: stdio } });
  await hub.request('POST', '/api/servers', { token: admin, body: { name: 'beta', config: stdio } });
  await waitFor(async () => (await hub.request('GET', '/api/servers', { token: admin })).body.data.every((s: any) => s.status === 'connected'), 15_000, 'servers connected');
});
test.after(async () => {
  for (const c of cleanups) await c();
  await hub.close();
});

test('a password change (own, or an admin reset) refuses every earlier token on REST, WebSocket and MCP', async () => {
  const old = await user('pat', { servers: ['alpha'] });
  const old2 = await hub.login('pat', 'pat-pass-1');
  const socket = ws(old);
  assert.ok(await socket.trpc.auth.verify.query());
  const session = await agent(hub.url + '/api/mcp', { token: old });
  assert.ok((await session.listTools()).tools.length > 0);

  const changed = await hub.request('POST', '/api/auth/change-password', { token: old, body: { currentPassword: 'pat-pass-1', newPassword: 'pat-pass-2' } });
  assert.is(changed.status, 200);
  const fresh = changed.body.data.token as string;
  for (const t of [old, old2]) {
    const res = await hub.request('GET', '/api/auth/verify', { token: t });
    assert.is(res.status, 401);
    assert.match(res.body.error, /revoked/);
  }
  assert.is((await hub.request('GET', '/api/auth/verify', { token: fresh })).status, 200);
  await rejects(() => socket.trpc.auth.verify.query(), /revoked/);
  await rejects(() => session.listTools());
  await rejects(() => agent(hub.url + '/api/mcp', { token: old }));
  socket.close();

  // An admin's reset does the same to the fresh token.
  assert.is((await hub.request('PUT', '/api/users/pat', { token: admin, body: { password: 'pat-pass-3' } })).status, 200);
  assert.is((await hub.request('GET', '/api/auth/verify', { token: fresh })).status, 401);
  assert.is((await hub.request('GET', '/api/auth/verify', { token: await hub.login('pat', 'pat-pass-3') })).status, 200);
});

test('sign out everywhere ends every session of the user, and only theirs', async () => {
  const a = await user('quinn');
  const b = await hub.login('quinn', 'quinn-pass-1');
  assert.is((await hub.request('POST', '/api/auth/logout-all', { token: a })).status, 200);
  assert.is((await hub.request('GET', '/api/auth/verify', { token: b })).status, 401);
  assert.is((await hub.request('GET', '/api/auth/verify', { token: admin })).status, 200);
});

test('open subscriptions end on logout and on deletion', async () => {
  for (const how of ['logout', 'deletion'] as const) {
    const t = await user(`sub-${how}`, { role: 'manager' });
    const socket = ws(t);
    const logs = watch((h) => socket.trpc.logs.stream.subscribe({}, h));
    const status = watch((h) => socket.trpc.servers.onStatus.subscribe(undefined, h));
    const settings = watch((h) => socket.trpc.system.onSettingsChanged.subscribe(undefined, h));
    await waitFor(() => logs.events.length > 0, 5000, 'the initial logs');
    if (how === 'logout') assert.is((await hub.request('POST', '/api/auth/logout', { token: t })).status, 200);
    else assert.is((await hub.request('DELETE', `/api/users/sub-${how}`, { token: admin })).status, 200);
    for (const [name, s] of [['logs.stream', logs], ['servers.onStatus', status], ['system.onSettingsChanged', settings]] as const) {
      await waitFor(() => s.ended, 2000, `${name} to end after ${how}`);
      assert.match(s.ended!, /revoked|no longer exists|Signed out/i, name);
    }
    socket.close();
  }
});

test('a demotion re-scopes open feeds at once, and a deletion ends them', async () => {
  const t = await user('dana', { role: 'manager' });
  const socket = ws(t);
  const calls = watch((h) => socket.trpc.monitoring.onCall.subscribe(undefined, h));
  const status = watch((h) => socket.trpc.servers.onStatus.subscribe(undefined, h));
  const logs = watch((h) => socket.trpc.logs.stream.subscribe({}, h));
  await waitFor(() => logs.events.length > 0, 5000, 'the initial logs');
  // As a manager, dana hears every server, and every call.
  await hub.request('POST', '/api/servers/beta/toggle', { token: admin, body: { enabled: false } });
  await waitFor(() => JSON.stringify(status.events).includes('"name":"beta"'), 3000, 'beta disabled, heard as manager');
  await hub.request('POST', '/api/tools/call/alpha', { token: admin, body: { toolName: 'echo', arguments: { message: 'x' } } });
  await waitFor(() => calls.events.length > 0, 3000, 'a call heard as manager');
  // Demoted to a viewer of alpha: the same feeds go on, but only with what a viewer of alpha may read.
  assert.is((await hub.request('PUT', '/api/users/dana', { token: admin, body: { role: 'viewer', servers: ['alpha'] } })).status, 200);
  await new Promise((r) => setTimeout(r, 300));
  const seen = { status: status.events.length, logs: logs.events.length, calls: calls.events.length };
  await hub.request('POST', '/api/servers/beta/toggle', { token: admin, body: { enabled: true } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/beta', { token: admin })).body.data.status === 'connected', 10_000, 'beta back');
  await hub.request('POST', '/api/tools/call/beta', { token: admin, body: { toolName: 'echo', arguments: { message: 'beta-call' } } });
  await hub.request('POST', '/api/tools/call/alpha', { token: admin, body: { toolName: 'echo', arguments: { message: 'alpha-call' } } });
  await hub.request('POST', '/api/servers/alpha/toggle', { token: admin, body: { enabled: false } });
  await waitFor(() => JSON.stringify(status.events.slice(seen.status)).includes('"name":"alpha"'), 3000, 'alpha, still heard');
  await new Promise((r) => setTimeout(r, 300));
  const heard = JSON.stringify([status.events.slice(seen.status), logs.events.slice(seen.logs)]);
  assert.not.match(heard, /"(server|name)":"beta"/, 'a viewer of alpha hears beta');
  assert.equal(calls.events.slice(seen.calls), [], "a viewer hears the admin's calls");
  assert.equal([status.ended, logs.ended, calls.ended], [null, null, null]);
  await hub.request('POST', '/api/servers/alpha/toggle', { token: admin, body: { enabled: true } });
  await hub.request('DELETE', '/api/users/dana', { token: admin });
  await waitFor(() => calls.ended && status.ended && logs.ended, 2000, 'every feed to end');
  socket.close();
});

test('a subscription opened with an API key ends when the key is revoked', async () => {
  const key = await hub.request('POST', '/api/auth/api-keys', { token: admin, body: { name: 'feed', permissions: ['logs:read'] } });
  const client = createWSClient({ url: hub.url.replace(/^http/, 'ws') + '/trpc', WebSocket: WebSocket as never, connectionParams: { apiKey: key.body.data.key } });
  cleanups.push(() => client.close());
  const trpc = createTRPCClient<AppRouter>({ links: [wsLink({ client })] });
  const logs = watch((h) => trpc.logs.stream.subscribe({}, h));
  await waitFor(() => logs.events.length > 0, 5000, 'the initial logs');
  await hub.request('DELETE', `/api/auth/api-keys/${key.body.data.id}`, { token: admin });
  await waitFor(() => logs.ended, 2000, 'the feed to end');
  client.close();
  assert.ok(ADMIN.username);
});

test.run();
