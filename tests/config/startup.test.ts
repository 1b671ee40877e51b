import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig, ConfigError } from '@hub/server';
import { tempDir } from '../helpers/hub';
import { failedStart, startMain, stop } from '../helpers/process';

test('defaults match the start-up contract', () => {
  const c = loadConfig({});
  assert.is(c.port, 3000);
  assert.is(c.host, '127.0.0.1');
  assert.ok(c.settingsPath.endsWith(path.join('data', 'mcp_settings.json')));
  assert.is(c.jwtExpiresInSeconds, 86400);
  assert.ok(Object.isFrozen(c));
});

test('a bad value names its variable', () => {
  for (const [env, name] of [
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ JWT_EXPIRES_IN: 'soon' }, 'JWT_EXPIRES_IN'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ HTTPS_ENABLED: 'maybe' }, 'HTTPS_ENABLED'],
    [{ HTTPS_ENABLED: 'true' }, 'SSL_CERT_PATH'],
    [{ HTTPS_ENABLED: 'true', SSL_CERT_PATH: '/nonexistent.pem', SSL_KEY_PATH: '/nonexistent.key' }, 'SSL_CERT_PATH'],
  ] as const) {
    try {
      loadConfig(env);
      assert.unreachable(`accepted ${JSON.stringify(env)}`);
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.match((err as Error).message, name);
    }
  }
});

test('main starts, prints a generated admin password once, answers /health, and stops on SIGTERM', async () => {
  const dir = await tempDir();
  const settings = path.join(dir, 'mcp_settings.json');
  const first = await startMain({ MCPHUB_SETTING_PATH: settings, AUTH_PASSWORD: '' });
  const m = /password: (\S+)/.exec(first.output());
  assert.ok(m, 'generated password printed');
  const health = await fetch(first.url + '/health');
  assert.is(health.status, 200);
  const login = await fetch(first.url + '/api/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: m![1] }),
  });
  assert.is(login.status, 200);
  assert.is(await stop(first.child), 0);
  const second = await startMain({ MCPHUB_SETTING_PATH: settings, AUTH_PASSWORD: '' });
  assert.not.match(second.output(), /password:/);
  await stop(second.child);
  await rm(dir, { recursive: true });
});

test('a bad variable stops start-up with a message naming it', async () => {
  const r = await failedStart({ PORT: 'nope' });
  assert.is(r.code, 1);
  assert.match(r.output, /PORT/);
  assert.not.match(r.output, /at .*\.ts:\d+/); // a message, not a stack trace
});

test('a malformed settings file stops start-up with a clear error and is left untouched', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'mcp_settings.json');
  await writeFile(file, '{"mcpServers": {"a": {"command": 5}}}');
  const r = await failedStart({ MCPHUB_SETTING_PATH: file });
  assert.is(r.code, 1);
  assert.match(r.output, /mcpServers\.a\.command/);
  assert.is(await readFile(file, 'utf8'), '{"mcpServers": {"a": {"command": 5}}}');
  await rm(dir, { recursive: true });
});

test('HTTPS_ENABLED serves over TLS with the given certificate', async () => {
  const dir = await tempDir();
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
  const started = await startMain({
    MCPHUB_SETTING_PATH: path.join(dir, 'mcp_settings.json'),
    HTTPS_ENABLED: 'true',
    SSL_CERT_PATH: cert,
    SSL_KEY_PATH: key,
  });
  assert.match(started.url, /^https:/);
  const https = await import('node:https');
  const status = await new Promise<number>((resolve, reject) => {
    https.get(started.url + '/health', { rejectUnauthorized: false }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject);
  });
  assert.is(status, 200);
  await stop(started.child);
  await rm(dir, { recursive: true });
});

test.run();
