import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHub, type TestHub } from '../helpers/hub';
import { isTRPCError, wsClient } from '../helpers/trpc';

let hub: TestHub;
let token: string;
test.before(async () => {
  hub = await startHub();
  token = await hub.login();
});
test.after(() => hub.close());

test('the same operation answers the same through REST and the typed WebSocket client', async () => {
  const { client, close } = wsClient(hub.url, token);
  const [rest, ws] = await Promise.all([hub.request('GET', '/api/settings', { token }), client.settings.get.query()]);
  assert.equal(ws, rest.body.data);
  const [restPerms, wsPerms] = await Promise.all([hub.request('GET', '/api/auth/permissions', { token }), client.auth.permissions.query()]);
  assert.equal(wsPerms, restPerms.body.data);
  const updated = await client.settings.updateSystemConfig.mutate({ install: { baseUrl: 'https://hub.example.com' } });
  assert.is(updated.install?.baseUrl, 'https://hub.example.com');
  const after = await hub.request('GET', '/api/settings', { token });
  assert.is(after.body.data.systemConfig.install.baseUrl, 'https://hub.example.com');
  close();
});

test('login over WebSocket gives a token that REST accepts', async () => {
  const { client, close } = wsClient(hub.url);
  const result = await client.auth.login.mutate({ username: 'admin', password: 'admin-pass-123' });
  const res = await hub.request('GET', '/api/auth/verify', { token: result.token });
  assert.is(res.status, 200);
  close();
});

test('a validation error over WebSocket names the field, like REST does', async () => {
  const { client, close } = wsClient(hub.url, token);
  try {
    await client.settings.updateSystemConfig.mutate({ routing: { skipAuth: 'no' as unknown as boolean } });
    assert.unreachable('should fail');
  } catch (err) {
    assert.ok(isTRPCError(err));
    assert.is(err.data?.code, 'BAD_REQUEST');
    assert.match(err.message, /routing\.skipAuth/);
    const rest = await hub.request('PUT', '/api/system-config', { token, body: { routing: { skipAuth: 'no' } } });
    assert.is(rest.body.error, err.message);
  }
  close();
});

test('without a token, protected procedures are UNAUTHORIZED', async () => {
  const { client, close } = wsClient(hub.url);
  try {
    await client.settings.get.query();
    assert.unreachable('should fail');
  } catch (err) {
    assert.ok(isTRPCError(err));
    assert.is(err.data?.code, 'UNAUTHORIZED');
  }
  close();
});

test('a settings subscription hears a change made through REST', async () => {
  const { client, close } = wsClient(hub.url, token);
  const events: Array<{ id: string; revision: number }> = [];
  let resolveFirst!: () => void;
  const first = new Promise<void>((r) => (resolveFirst = r));
  const sub = client.system.onSettingsChanged.subscribe(undefined, {
    onData: (e) => {
      events.push({ id: e.id, revision: e.data.revision });
      resolveFirst();
    },
  });
  // Give the subscription a moment to start on the server.
  await new Promise((r) => setTimeout(r, 150));
  const res = await hub.request('PUT', '/api/system-config', { token, body: { mcpRouter: { title: 'live' } } });
  assert.is(res.status, 200);
  await Promise.race([first, new Promise((_, rej) => setTimeout(() => rej(new Error('no event within 3s')), 3000))]);
  assert.ok(events.length >= 1);
  assert.is(events[0]!.id, String(events[0]!.revision));
  sub.unsubscribe();
  close();
});

test('the heartbeat subscription ticks with tracked ids', async () => {
  const { client, close } = wsClient(hub.url, token);
  const seen: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no heartbeats')), 3000);
    const sub = client.system.heartbeat.subscribe(
      { intervalMs: 100 },
      {
        onData: (e) => {
          seen.push(e.id);
          assert.type(e.data.uptime, 'number');
          if (seen.length === 3) {
            clearTimeout(timer);
            sub.unsubscribe();
            resolve();
          }
        },
        onError: reject,
      },
    );
  });
  assert.equal(seen, ['1', '2', '3']);
  close();
});

test('a subscription without a token is refused', async () => {
  const { client, close } = wsClient(hub.url);
  const err = await new Promise<unknown>((resolve) => {
    client.system.heartbeat.subscribe({ intervalMs: 100 }, { onData: () => resolve(null), onError: resolve });
  });
  assert.ok(isTRPCError(err));
  assert.is(err.data?.code, 'UNAUTHORIZED');
  close();
});

test('an open WebSocket loses access at its next call once its user is deleted or its token revoked', async () => {
  await hub.request('POST', '/api/users', { token, body: { username: 'wsuser', password: 'wsuser-pass', role: 'manager' } });
  const t = await hub.login('wsuser', 'wsuser-pass');
  const { client, close } = wsClient(hub.url, t);
  assert.ok(Array.isArray(await client.servers.list.query()));
  await hub.request('PUT', '/api/users/wsuser', { token, body: { role: 'viewer' } });
  try {
    await client.settings.get.query();
    assert.unreachable('a demoted user kept config:read');
  } catch (err) {
    assert.ok(isTRPCError(err));
    assert.is(err.data?.code, 'FORBIDDEN');
  }
  await hub.request('DELETE', '/api/users/wsuser', { token });
  try {
    await client.servers.list.query();
    assert.unreachable('a deleted user kept access');
  } catch (err) {
    assert.ok(isTRPCError(err));
    assert.is(err.data?.code, 'UNAUTHORIZED');
  }
  close();
});

test('tRPC queries also work over plain HTTP at /trpc', async () => {
  const res = await fetch(`${hub.url}/trpc/system.config`);
  assert.is(res.status, 200);
  const body = await res.json();
  assert.is(body.result.data.name, 'Hub');
});

test.run();
