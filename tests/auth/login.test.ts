import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { SignJWT } from 'jose';
import { startHub, tempDir } from '../helpers/hub';

test('an MCPHub user with a bcrypt hash logs in and is moved to argon2id', async () => {
  const dir = await tempDir();
  const hash = await bcrypt.hash('legacy-pass', 10);
  await writeFile(
    path.join(dir, 'mcp_settings.json'),
    JSON.stringify({ mcpServers: {}, users: [{ username: 'old', password: hash, isAdmin: true }] }),
  );
  const hub = await startHub({ dir });
  const token = await hub.login('old', 'legacy-pass');
  assert.type(token, 'string');
  const saved = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  const user = saved.users.find((u: { username: string }) => u.username === 'old');
  assert.match(user.password, /^\$argon2id\$/);
  assert.is(user.isAdmin, true);
  // No extra admin is created when the file already has users.
  assert.is(saved.users.length, 1);
  // The upgraded hash still accepts the same password.
  assert.type(await hub.login('old', 'legacy-pass'), 'string');
  const perms = await hub.request('GET', '/api/auth/permissions', { token });
  assert.is(perms.body.data.role, 'admin');
  await hub.close();
});

test('the first start creates the admin from AUTH_USERNAME and AUTH_PASSWORD, hashed', async () => {
  const hub = await startHub({ env: { AUTH_USERNAME: 'root', AUTH_PASSWORD: 'given-pass-1' } });
  assert.type(await hub.login('root', 'given-pass-1'), 'string');
  const saved = await readFile(hub.settingsPath, 'utf8');
  assert.not.match(saved, /given-pass-1/);
  assert.match(saved, /\$argon2id\$/);
  assert.is(hub.app.hub.bootstrap.generatedAdminPassword, undefined);
  await hub.close();
});

test('without AUTH_PASSWORD a strong password is generated, usable once printed, and never regenerated', async () => {
  const dir = await tempDir();
  const hub = await startHub({ dir, env: { AUTH_PASSWORD: '' } });
  const generated = hub.app.hub.bootstrap.generatedAdminPassword!;
  assert.ok(generated.length >= 20);
  assert.type(await hub.login('admin', generated), 'string');
  await hub.close({ keepDir: true });
  const again = await startHub({ dir, env: { AUTH_PASSWORD: '' } });
  assert.is(again.app.hub.bootstrap.generatedAdminPassword, undefined);
  await again.close();
});

test('a generated JWT secret is kept in the data folder so a restart keeps sessions', async () => {
  const dir = await tempDir();
  const hub = await startHub({ dir });
  const token = await hub.login();
  await hub.close({ keepDir: true });
  const secret = (await readFile(path.join(dir, '.jwt_secret'), 'utf8')).trim();
  assert.ok(secret.length >= 32);
  const again = await startHub({ dir });
  const res = await again.request('GET', '/api/auth/verify', { token });
  assert.is(res.status, 200);
  await again.close();
});

test('an expired token is a 401 that says it expired', async () => {
  const secret = 'a-test-secret-of-enough-length';
  const hub = await startHub({ env: { JWT_SECRET: secret } });
  const expired = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('admin')
    .setJti('x1')
    .setIssuedAt(Math.floor(Date.now() / 1000) - 100)
    .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
    .sign(new TextEncoder().encode(secret));
  const res = await hub.request('GET', '/api/settings', { token: expired });
  assert.is(res.status, 401);
  assert.match(res.body.error, /expired/i);
  await hub.close();
});

test('a token signed with another secret is refused', async () => {
  const hub = await startHub({ env: { JWT_SECRET: 'the-real-secret-1234' } });
  const forged = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('admin')
    .setJti('x2')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('some-other-secret-123'));
  const res = await hub.request('GET', '/api/settings', { token: forged });
  assert.is(res.status, 401);
  await hub.close();
});

test('JWT_EXPIRES_IN sets the token lifetime', async () => {
  const hub = await startHub({ env: { JWT_EXPIRES_IN: '2h' } });
  const res = await hub.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'admin-pass-123' } });
  const payload = JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString());
  assert.is(payload.exp - payload.iat, 7200);
  await hub.close();
});

test('skipAuth removes the console login but still refuses bad tokens', async () => {
  const hub = await startHub();
  const token = await hub.login();
  await hub.request('PUT', '/api/system-config', { token, body: { routing: { skipAuth: true } } });
  const pub = await hub.request('GET', '/public-config');
  assert.is(pub.body.data.skipAuth, true);
  assert.ok(pub.body.data.permissions.config.includes('read'));
  const open = await hub.request('GET', '/api/settings');
  assert.is(open.status, 200);
  const bad = await hub.request('GET', '/api/settings', { token: 'garbage' });
  assert.is(bad.status, 401);
  await hub.close();
});

test('a user deleted from the file loses access even with a valid token', async () => {
  const hub = await startHub();
  const token = await hub.login();
  await hub.app.hub.services.store.update((s) => {
    s.users = [];
  });
  const res = await hub.request('GET', '/api/auth/verify', { token });
  assert.is(res.status, 401);
  await hub.close();
});

test.run();
