/**
 * DNS rebinding and cross-site requests: every door (REST, /trpc and its
 * WebSocket upgrade, MCP) answers only to allowed Host names and Origins,
 * with or without routing.skipAuth.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import WebSocket from 'ws';
import { startHub, type TestHub } from '../helpers/hub';

let hub: TestHub;
let token: string;
let port: string;

/** A request with the Host and Origin an attacker's page would send. */
function send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; text: string }> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { ...(data ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

function upgrade(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/trpc`, { headers });
    ws.on('open', () => (ws.close(), resolve(101)));
    ws.on('unexpected-response', (req, res) => (req.destroy(), resolve(res.statusCode!)));
    ws.on('error', () => resolve(0));
  });
}

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  port = new URL(hub.url).port;
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { skipAuth: true } } });
});
test.after(() => hub.close());

test('with skipAuth, a rebound Host cannot add a stdio server (or read anything) over REST', async () => {
  const rebound = { host: `rebind.evil.example:${port}` };
  const add = await send('POST', '/api/servers', rebound, { name: 'pwned', config: { type: 'stdio', command: 'touch', args: ['/tmp/pwned'] } });
  assert.is(add.status, 403);
  assert.match(add.text, /Host rebind\.evil\.example/);
  assert.is((await send('GET', '/api/settings', rebound)).status, 403);
  assert.is((await send('GET', '/trpc/servers.list', rebound)).status, 403);
  assert.is((await send('POST', '/mcp', { ...rebound, accept: 'application/json, text/event-stream' }, { jsonrpc: '2.0', id: 1, method: 'ping' })).status, 403);
  const servers = await hub.request('GET', '/api/servers', { token });
  assert.not.ok(servers.body.data.some((s: { name: string }) => s.name === 'pwned'));
  // The same request with Hub's own address works (skipAuth acts as admin).
  assert.is((await send('GET', '/api/settings', { host: `127.0.0.1:${port}` })).status, 200);
  assert.is((await send('GET', '/api/settings', { host: `localhost:${port}` })).status, 200);
});

test('a foreign Origin is refused on REST, and without skipAuth too', async () => {
  const evil = { host: `127.0.0.1:${port}`, origin: 'https://evil.example' };
  assert.is((await send('POST', '/api/servers', evil, { name: 'x', config: { type: 'sse', url: 'http://127.0.0.1:9/' } })).status, 403);
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { skipAuth: false } } });
  assert.is((await send('GET', '/api/servers', { ...evil, authorization: `Bearer ${token}` })).status, 403);
  assert.is((await send('GET', '/api/servers', { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}`, authorization: `Bearer ${token}` })).status, 200);
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { skipAuth: true } } });
});

test('the /trpc WebSocket upgrade refuses a foreign Origin and a rebound Host', async () => {
  assert.is(await upgrade({ origin: 'https://evil.example' }), 403);
  assert.is(await upgrade({ host: `rebind.evil.example:${port}` }), 403);
  assert.is(await upgrade({ origin: `http://127.0.0.1:${port}` }), 101);
  assert.is(await upgrade({}), 101);
});

test('install.baseUrl and MCP_ALLOWED_HOSTS name further hosts', async () => {
  assert.is((await send('GET', '/health', { host: 'hub.example.com' })).status, 403);
  await hub.request('PUT', '/api/system-config', { token, body: { install: { baseUrl: 'https://hub.example.com' } } });
  assert.is((await send('GET', '/health', { host: 'hub.example.com' })).status, 200);
  assert.is((await send('GET', '/health', { host: 'hub.example.com', origin: 'https://hub.example.com' })).status, 200);
  const other = await startHub({ env: { MCP_ALLOWED_HOSTS: 'proxy.internal' } });
  const p = new URL(other.url).port;
  const get = (host: string) => new Promise<number>((r) => http.get({ host: '127.0.0.1', port: p, path: '/health', headers: { host } }, (res) => (res.resume(), r(res.statusCode!))));
  assert.is(await get('proxy.internal'), 200);
  assert.is(await get('other.internal'), 403);
  await other.close();
});

test('bound to every interface, Hub answers any IP address but not an unknown name', async () => {
  const open = await startHub({ env: { HOST: '0.0.0.0' } });
  const p = new URL(open.url).port;
  const get = (host: string) => new Promise<number>((r) => http.get({ host: '127.0.0.1', port: p, path: '/health', headers: { host } }, (res) => (res.resume(), r(res.statusCode!))));
  assert.is(await get(`10.1.2.3:${p}`), 200);
  assert.is(await get(`[::1]:${p}`), 200);
  assert.is(await get(`rebind.evil.example:${p}`), 403);
  await open.close();
});

test.run();
