import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import type { ChildProcess } from 'node:child_process';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';
import { kill, startProcess } from '../helpers/spawn';

let hub: TestHub;
let token: string;
let upstream: ChildProcess;
let base: string;

test.before(async () => {
  const p = await startProcess(process.execPath, [fixture('oauth-server.mjs')], {}, /PORT=\d+/);
  upstream = p.child;
  base = `http://127.0.0.1:${/PORT=(\d+)/.exec(p.output())![1]}`;
  hub = await startHub();
  token = await hub.login();
});
test.after(async () => {
  await hub.close();
  await kill(upstream);
});

test('a server that needs OAuth shows oauth_required with the authorization URL, and the callback completes it', async () => {
  const res = await hub.request('POST', '/api/servers', { token, body: { name: 'protected', config: { type: 'streamable-http', url: `${base}/mcp` } } });
  assert.is(res.status, 200);
  const pending = await waitFor(async () => {
    const v = (await hub.request('GET', '/api/servers/protected', { token })).body.data;
    return v.status === 'oauth_required' && v.authorizationUrl && v;
  }, 10_000, 'oauth_required');
  const authUrl = new URL(pending.authorizationUrl);
  assert.is(authUrl.origin + authUrl.pathname, `${base}/authorize`);
  assert.is(authUrl.searchParams.get('redirect_uri'), `${hub.url}/oauth/callback`);
  assert.ok(authUrl.searchParams.get('code_challenge'), 'PKCE is used');

  // The operator's browser visits the URL; the provider redirects back to Hub.
  const approve = await fetch(authUrl, { redirect: 'manual' });
  const back = approve.headers.get('location')!;
  assert.ok(back.startsWith(`${hub.url}/oauth/callback?`));
  const done = await fetch(back);
  assert.is(done.status, 200);
  assert.match(await done.text(), /authorized/);

  await waitFor(async () => (await hub.request('GET', '/api/servers/protected', { token })).body.data.status === 'connected', 10_000, 'connected');
  const call = await hub.request('POST', '/api/tools/call/protected', { token, body: { toolName: 'whoami' } });
  assert.is(call.body.data.content[0].text, 'authorized caller');

  // Tokens are kept for restarts but never shown.
  const file = JSON.parse(await readFile(hub.settingsPath, 'utf8'));
  assert.is(file.mcpServers.protected.oauth.accessToken, 'valid-token');
  const listed = JSON.stringify((await hub.request('GET', '/api/servers', { token })).body);
  assert.not.match(listed, /valid-token|refresh-1/);
  assert.is((await hub.request('GET', '/api/servers/protected', { token })).body.data.config.oauth.authorized, true);
});

test('a callback with an unknown state or an error is refused clearly', async () => {
  const unknown = await hub.request('GET', '/oauth/callback?code=x&state=nope');
  assert.is(unknown.status, 404);
  const refused = await hub.request('GET', '/oauth/callback?error=access_denied');
  assert.is(refused.status, 400);
  assert.match(refused.body.error, /access_denied/);
});

test.run();
