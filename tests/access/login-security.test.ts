import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TOTP, Secret } from 'otpauth';
import bcrypt from 'bcryptjs';
import pg from 'pg';
import { readFile } from 'node:fs/promises';
import { ADMIN, startHub, type TestHub } from '../helpers/hub';

let hub: TestHub;
let token: string;
test.before(async () => {
  hub = await startHub();
  token = await hub.login();
});
test.after(() => hub.close());

const login = (body: object, headers: Record<string, string> = {}) => hub.request('POST', '/api/auth/login', { body, headers });

test('TOTP: enable returns a secret and URI, verify switches it on, then login needs a valid mfaCode', async () => {
  await hub.request('POST', '/api/users', { token, body: { username: 'carol', password: 'carol-pass' } });
  const ct = await hub.login('carol', 'carol-pass');
  const en = await hub.request('POST', '/api/auth/mfa/enable', { token: ct, body: { type: 'totp', appName: 'Hub test', password: 'carol-pass' } });
  assert.is(en.status, 200);
  assert.match(en.body.data.otpauthUri, /^otpauth:\/\/totp\//);
  const totp = new TOTP({ secret: Secret.fromBase32(en.body.data.secret), digits: 6, period: 30 });
  assert.is((await hub.request('POST', '/api/auth/mfa/verify', { token: ct, body: { code: '000000' } })).status, 400);
  const ok = await hub.request('POST', '/api/auth/mfa/verify', { token: ct, body: { code: totp.generate() } });
  assert.is(ok.status, 200);
  const noCode = await login({ username: 'carol', password: 'carol-pass' });
  assert.is(noCode.status, 401);
  assert.match(noCode.body.error, /mfaCode/);
  const wrong = await login({ username: 'carol', password: 'carol-pass', mfaCode: '123456' });
  assert.is(wrong.status, 401);
  const badFormat = await login({ username: 'carol', password: 'carol-pass', mfaCode: 'abc' });
  assert.is(badFormat.status, 400);
  // The code used for verify is spent; wait for the next one if needed.
  const next = () => totp.generate({ timestamp: Date.now() + 30_000 });
  const good = await login({ username: 'carol', password: 'carol-pass', mfaCode: next() });
  assert.is(good.status, 200, JSON.stringify(good.body));
  assert.is(good.body.user.mfaEnabled, true);
  const file = await readFile(hub.settingsPath, 'utf8');
  assert.ok(file.includes('"mfa"'));
  assert.not.match(JSON.stringify((await hub.request('GET', '/api/settings', { token })).body), new RegExp(en.body.data.secret));
});

test('failed logins are limited per user and address; the real user elsewhere still gets in', async () => {
  await hub.request('POST', '/api/users', { token, body: { username: 'dave', password: 'dave-pass' } });
  await hub.request('PUT', '/api/system-config', { token, body: { rateLimit: { loginMax: 3 } } });
  for (let i = 0; i < 3; i++) assert.is((await login({ username: 'dave', password: 'nope-nope' })).status, 401);
  const blocked = await login({ username: 'dave', password: 'dave-pass' });
  assert.is(blocked.status, 429);
  // Another address (as a proxy would tell Hub) is not held back; the limiter keys on the address Hub sees.
  const fromElsewhere = await hub.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: '10.1.2.3', payload: { username: 'dave', password: 'dave-pass' } });
  assert.is(fromElsewhere.statusCode, 200);
  // Successes do not count towards the limit.
  for (let i = 0; i < 5; i++) {
    const r = await hub.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: '10.9.9.9', payload: { username: 'admin', password: ADMIN.password } });
    assert.is(r.statusCode, 200);
  }
  await hub.request('PUT', '/api/system-config', { token, body: { rateLimit: { loginMax: 10 } } });
});

test('the general rate limit is off by default and, when on, answers 429 with the configured message and standard headers', async () => {
  await hub.request('PUT', '/api/system-config', { token, body: { rateLimit: { enabled: true, max: 3, windowMs: 60_000, message: 'Slow down please' } } });
  const results = [];
  for (let i = 0; i < 5; i++) results.push(await hub.request('GET', '/api/auth/verify', { token }));
  const limited = results.find((r) => r.status === 429)!;
  assert.ok(limited, 'a request was limited');
  assert.match(limited.body.error, /Slow down please/);
  assert.ok(results[0]!.headers.get('ratelimit-limit'));
  assert.is(results[0]!.headers.get('x-ratelimit-limit'), null);
  // A load balancer's health checks are never limited (a 429 would take the Hub out of rotation).
  assert.is((await hub.request('GET', '/health')).status, 200);
  // Turning it off applies at once (the limit is read per request).
  await hub.app.hub.services.store.update((s) => void (s.systemConfig.rateLimit!.enabled = false));
  assert.is((await hub.request('GET', '/api/auth/verify', { token })).status, 200);
});

test('session cookies: login sets a signed cookie that authenticates; logout clears it', async () => {
  await hub.request('PUT', '/api/system-config', { token, body: { session: { enabled: true, secret: 'a-cookie-secret-long-enough', cookie: { httpOnly: true, sameSite: 'strict', maxAge: 3_600_000 } } } });
  const res = await login({ username: 'admin', password: ADMIN.password });
  const cookie = res.headers.get('set-cookie')!;
  assert.match(cookie, /hub_session=.*HttpOnly/);
  assert.match(cookie, /SameSite=strict/);
  assert.match(cookie, /Max-Age=3600/);
  const pair = cookie.split(';')[0]!;
  const me = await hub.request('GET', '/api/auth/verify', { headers: { cookie: pair } });
  assert.is(me.status, 200);
  const tampered = await hub.request('GET', '/api/auth/verify', { headers: { cookie: pair.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) } });
  assert.is(tampered.status, 401);
  const out = await hub.request('POST', '/api/auth/logout', { headers: { cookie: pair } });
  assert.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/);
  assert.is((await hub.request('GET', '/api/auth/verify', { headers: { cookie: pair } })).status, 401);
});

test('the audit log records logins, failures, config and permission changes with who and where', async () => {
  const today = new Date().toISOString().slice(0, 10);
  const res = await hub.request('GET', `/api/audit/logs?startDate=${today}&endDate=${today}`, { token });
  assert.is(res.status, 200);
  const events = res.body.data as Array<{ event: string; actor: string | null; success: boolean; ip?: string; details?: any }>;
  assert.ok(events.some((e) => e.event === 'login' && e.actor === 'admin' && e.success && e.ip));
  assert.ok(events.some((e) => e.event === 'login' && !e.success && e.details?.username === 'dave'));
  assert.ok(events.some((e) => e.event === 'config_change' && e.actor === 'admin'));
  assert.ok(events.some((e) => e.event === 'permission_change'));
  assert.ok(events.some((e) => e.event === 'logout'));
  const none = await hub.request('GET', '/api/audit/logs?startDate=2000-01-01&endDate=2000-01-02', { token });
  assert.equal(none.body.data, []);
  assert.is((await hub.request('GET', '/api/audit/logs?startDate=yesterday-ish', { token })).status, 400);
});

test('auth.provider=database: users in a PostgreSQL table can log in', async () => {
  const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const table = `hub_users_${process.pid}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE ${table} (username text primary key, password text not null, role text, email text)`);
    await client.query(`INSERT INTO ${table} VALUES ($1, $2, $3, $4)`, ['erin', await bcrypt.hash('erin-db-pass', 10), 'manager', 'erin@example.com']);
    const cfg = await hub.request('PUT', '/api/system-config', { token, body: { auth: { provider: 'database', database: { url, userTable: table } } } });
    assert.is(cfg.status, 200);
    const ok = await login({ username: 'erin', password: 'erin-db-pass' });
    assert.is(ok.status, 200, JSON.stringify(ok.body));
    assert.is(ok.body.user.role, 'manager');
    const perms = await hub.request('GET', '/api/auth/permissions', { token: ok.body.token });
    assert.ok(perms.body.data.permissions.includes('servers:write'));
    assert.is((await login({ username: 'erin', password: 'wrong-pass' })).status, 401);
    assert.is((await login({ username: 'nobody', password: 'whatever' })).status, 401);
    // Local users (the first admin) still log in.
    assert.is((await login({ username: 'admin', password: ADMIN.password })).status, 200);
    const bad = await hub.request('PUT', '/api/system-config', { token, body: { auth: { database: { userTable: 'users; drop table x' } } } });
    assert.is(bad.status, 400);
  } finally {
    await hub.request('PUT', '/api/system-config', { token, body: { auth: { provider: 'local' } } });
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.end();
  }
});

test.run();
