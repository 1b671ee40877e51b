/**
 * Names are keys into maps: no name may reach Object.prototype, change
 * another record, crash Hub or leave a broken settings file. Hub runs in
 * this process, so a polluted prototype would show here too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { settingsFileSchema } from '@hub/contract';
import { startHub, type TestHub } from '../helpers/hub';
import { stdioEverything, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const sse = { type: 'sse', url: 'http://127.0.0.1:9/sse' };

const hostile = [
  '__proto__',
  'constructor',
  'prototype',
  '..',
  '.',
  'toString',
  'hasOwnProperty',
  'x'.repeat(5000),
  'a\u0000b',
  'line\nbreak',
  '\u001b[31mred',
  'Ünïcødé-名前-🙂',
  '%2e%2e',
  'a/../b',
];

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  const req = (method: string, url: string, body?: unknown) => hub.request(method, url, { token, body });
  await req('POST', '/api/servers', { name: 'everything', config: stdioEverything() });
  await req('POST', '/api/servers', { name: 'sentinel', config: { ...sse, env: { KEEP: 'me' }, headers: { 'x-keep': 'me' } } });
  await req('POST', '/api/groups', { name: 'sentinel-group', servers: ['sentinel'] });
  await req('POST', '/api/users', { username: 'sentinel-user', password: 'sentinel-pass', servers: ['sentinel'] });
  // What the routes below change; the sentinels above must stay as they are.
  await req('POST', '/api/servers', { name: 'target', config: sse });
  await req('POST', '/api/groups', { name: 'target-group', servers: ['target'] });
  await req('POST', '/api/users', { username: 'target-user', password: 'target-pass' });
  await waitFor(async () => (await req('GET', '/api/servers/everything')).body.data.status === 'connected', 15_000, 'everything connected');
});
test.after(() => hub.close());

const prototypeClean = () => Object.getOwnPropertyNames(Object.prototype).every((k) => typeof (Object.prototype as any)[k] === 'function' || k === '__proto__') && ({} as any).enabled === undefined;

test('a manager cannot reach Object.prototype through a server named __proto__', async () => {
  await hub.request('POST', '/api/users', { token, body: { username: 'mgr', password: 'mgr-pass-1', role: 'manager' } });
  const mgr = await hub.login('mgr', 'mgr-pass-1');
  const toggle = await hub.request('POST', '/api/servers/__proto__/toggle', { token: mgr, body: { enabled: false } });
  assert.is(toggle.status, 400);
  assert.match(toggle.body.error, /__proto__/);
  assert.is((await hub.request('GET', '/api/servers/__proto__', { token: mgr })).status, 400);
  const create = await hub.request('POST', '/api/servers', { token: mgr, body: { name: '__proto__', config: sse } });
  assert.is(create.status, 400);
  assert.match(create.body.error, /^name:/);
  assert.ok(prototypeClean(), 'Object.prototype was changed');
  const servers = (await hub.request('GET', '/api/servers', { token })).body.data;
  assert.ok(servers.every((s: any) => s.enabled === true), 'a server shows disabled');
  assert.is((await hub.request('GET', '/api/monitoring/scrape', { token })).status, 200);
  const file = await readFile(hub.settingsPath, 'utf8');
  assert.not.match(file, /"enabled": false/);
});

test('env and header names that are prototype keys are refused', async () => {
  for (const key of ['constructor', 'prototype']) {
    for (const field of ['env', 'headers']) {
      const res = await hub.request('PUT', '/api/servers/sentinel', { token, body: { config: { ...sse, [field]: { [key]: 'x' } } } });
      assert.is(res.status, 400, `${field}.${key}`);
      assert.match(res.body.error, new RegExp(`^config\\.${field}`));
    }
  }
  const raw = await hub.request('PUT', '/api/servers/sentinel', { token, body: '{"config":{"type":"sse","url":"http://127.0.0.1:9/sse","env":{"__proto__":{"polluted":1}}}}' });
  assert.is(raw.status, 400);
  assert.ok(prototypeClean());
});

/** Every name-keyed route, with the name in the place it is a key (targets, never the sentinels). */
const routes: Array<[method: string, url: (n: string) => string, body?: (n: string) => unknown]> = [
  ['POST', () => '/api/servers', (n) => ({ name: n, config: sse })],
  ['GET', (n) => `/api/servers/${n}`],
  ['PUT', (n) => `/api/servers/${n}`, () => ({ config: sse })],
  ['PUT', () => '/api/servers/target-rename', (n) => ({ config: sse, newName: n })],
  ['POST', (n) => `/api/servers/${n}/toggle`, () => ({ enabled: false })],
  ['DELETE', (n) => `/api/servers/${n}`],
  ['POST', (n) => `/api/servers/everything/tools/${n}/toggle`, () => ({ enabled: false })],
  ['PUT', (n) => `/api/servers/everything/tools/${n}/description`, () => ({ description: 'd' })],
  ['DELETE', (n) => `/api/servers/everything/prompts/${n}/description`],
  ['POST', (n) => `/api/servers/${n}/prompts/simple-prompt/toggle`, () => ({ enabled: false })],
  ['PUT', () => '/api/servers/target', (n) => ({ config: { ...sse, env: { [n]: 'v' }, headers: { [n]: 'v' } } })],
  ['PUT', () => '/api/servers/target', (n) => ({ config: { ...sse, tools: { [n]: { enabled: false } } } })],
  ['POST', (n) => `/api/tools/call/${n}`, () => ({ toolName: 'echo', arguments: {} })],
  ['POST', (n) => `/api/tools/call/everything`, (n) => ({ toolName: n, arguments: {} })],
  ['GET', (n) => `/api/tools/${n}/echo`],
  ['POST', (n) => `/api/tools/everything/${n}`, () => ({})],
  ['POST', (n) => `/api/mcp/everything/prompts/${n}`, () => ({ arguments: {} })],
  ['POST', () => '/api/groups', (n) => ({ name: n, servers: ['target'] })],
  ['POST', () => '/api/groups', (n) => ({ name: `g-${n.length}-${n.charCodeAt(0)}`, servers: [n] })],
  ['GET', (n) => `/api/groups/${n}`],
  ['PUT', (n) => `/api/groups/${n}`, () => ({ description: 'x' })],
  ['DELETE', (n) => `/api/groups/${n}`],
  ['POST', (n) => `/api/groups/${n}/servers`, () => ({ serverName: 'target' })],
  ['POST', () => '/api/groups/target-group/servers', (n) => ({ serverName: n })],
  ['DELETE', (n) => `/api/groups/target-group/servers/${n}`],
  ['PUT', (n) => `/api/groups/target-group/server-configs/${n}/tools`, () => ({ tools: 'all' })],
  ['PUT', () => '/api/groups/target-group/server-configs/target/tools', (n) => ({ tools: [n] })],
  ['POST', (n) => `/api/groups/${n}/users`, () => ({ userId: 'target-user' })],
  ['POST', () => '/api/groups/target-group/users', (n) => ({ userId: n })],
  ['POST', () => '/api/users', (n) => ({ username: n, password: 'secret-pass' })],
  ['POST', () => '/api/auth/users', (n) => ({ username: n, password: 'secret-pass' })],
  ['GET', (n) => `/api/users/${n}`],
  ['PUT', (n) => `/api/users/${n}`, () => ({ role: 'viewer' })],
  ['PUT', () => '/api/users/target-user', (n) => ({ servers: [n], groups: [n] })],
  ['DELETE', (n) => `/api/users/${n}`],
  ['POST', () => '/api/auth/api-keys', (n) => ({ name: n, permissions: ['servers:read'] })],
  ['DELETE', (n) => `/api/auth/api-keys/${n}`],
  ['POST', () => '/api/monitoring/metrics', (n) => ({ name: 'hostile', tags: { [n]: 'v' }, value: 1 })],
  ['GET', (n) => `/api/monitoring/metrics?server=${n}`],
  ['GET', (n) => `/api/logs?server=${n}`],
];

/** A request sent exactly as written: fetch would resolve `..` and `%2E%2E` segments before sending. */
function raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const u = new URL(hub.url);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method, path, headers: { authorization: `Bearer ${token}`, ...(data ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function sentinels() {
  const file = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  return JSON.stringify([file.mcpServers.sentinel, file.mcpServers.everything, file.groups.find((g: any) => g.name === 'sentinel-group'), file.users.find((u: any) => u.username === 'sentinel-user')]);
}

test('hostile names on every name-keyed route: never a 5xx, never a change to other records, always a valid settings file', async () => {
  await hub.request('POST', '/api/servers', { token, body: { name: 'target-rename', config: sse } });
  const before = await sentinels();
  const failures: string[] = [];
  for (const name of hostile) {
    for (const [method, url, body] of routes) {
      const path = url(encodeURIComponent(name));
      const res = await raw(method, path, body?.(name));
      const label = `${method} ${path.slice(0, 60)} [${JSON.stringify(name).slice(0, 20)}]`;
      if (res.status >= 500) failures.push(`${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`);
      if (['__proto__', 'constructor', 'prototype'].includes(name) && res.status === 200 && method !== 'GET') failures.push(`${label}: accepted a prototype key`);
      if (!prototypeClean()) failures.push(`${label}: Object.prototype changed`);
    }
    const text = await readFile(hub.settingsPath, 'utf8');
    const parsed = settingsFileSchema.safeParse(JSON.parse(text));
    if (!parsed.success) failures.push(`after ${JSON.stringify(name).slice(0, 20)}: settings file invalid`);
    // Renaming `target-rename` to a hostile name may succeed (unicode); put it back.
    await hub.request('POST', '/api/servers', { token, body: { name: 'target-rename', config: sse } });
  }
  assert.equal(failures, []);
  assert.is(await sentinels(), before, 'another record changed');
  assert.is((await hub.request('GET', '/health')).status, 200);
});

test('dot names and prototype keys are refused with 400 naming the field everywhere a name is created', async () => {
  for (const name of ['__proto__', 'constructor', 'prototype', '.', '..']) {
    for (const [url, body, field] of [
      ['/api/servers', { name, config: sse }, 'name'],
      ['/api/groups', { name }, 'name'],
      ['/api/users', { username: name, password: 'secret-pass' }, 'username'],
    ] as const) {
      const res = await hub.request('POST', url, { token, body });
      assert.is(res.status, 400, `${url} ${name}`);
      assert.is(res.body.field, field, `${url} ${name}: ${JSON.stringify(res.body)}`);
    }
  }
});

test.run();
