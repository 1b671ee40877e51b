/**
 * Trusting a gateway's JWT (systemConfig.auth.forwardAuth): public-key
 * signatures from its JWKS, issuer and audience checked, users created on
 * first sight and linked by issuer and subject, never to a local account by
 * name alone; the same on REST and MCP.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startHub, type TestHub } from '../helpers/hub';
import { agent } from '../helpers/mcp';

let hub: TestHub;
let admin: string;
let jwks: http.Server;
let privateKey: CryptoKey;
const ISSUER = 'https://gateway.example';

const sign = (claims: Record<string, unknown>, opts: { aud?: string } = {}) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'gw-1' }).setIssuer(ISSUER).setAudience(opts.aud ?? 'hub').setIssuedAt().setExpirationTime('5m').sign(privateKey);

test.before(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey as CryptoKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'gw-1', alg: 'ES256', use: 'sig' };
  jwks = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  hub = await startHub();
  admin = await hub.login();
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'alice', password: 'alice-pass-1', role: 'user' } });
  const res = await hub.request('PUT', '/api/system-config', {
    token: admin,
    body: { auth: { forwardAuth: { enabled: true, jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`, issuer: ISSUER, audience: 'hub', usernameClaim: 'preferred_username', defaultRole: 'user' } } },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
});
test.after(async () => {
  await hub.close();
  jwks.close();
});

test('a gateway token signs a new user in with the default role, on REST and MCP', async () => {
  const token = await sign({ sub: 'u-1', preferred_username: 'gina' });
  const perms = await hub.request('GET', '/api/auth/permissions', { token });
  assert.is(perms.status, 200, JSON.stringify(perms.body));
  assert.is(perms.body.data.username, 'gina');
  assert.is(perms.body.data.role, 'user');
  assert.is((await hub.request('GET', '/api/servers', { token })).status, 200);
  const c = await agent(`${hub.url}/mcp`, { token });
  assert.ok(Array.isArray((await c.listTools()).tools));
  await c.close();
});

test('a token signed with a shared secret, or for another audience, is refused', async () => {
  const hs = await new SignJWT({ sub: 'u-1', preferred_username: 'gina' }).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience('hub').setExpirationTime('5m').sign(new TextEncoder().encode('a-guessable-shared-secret-value'));
  assert.is((await hub.request('GET', '/api/servers', { token: hs })).status, 401);
  assert.is((await hub.request('GET', '/api/servers', { token: await sign({ sub: 'u-1', preferred_username: 'gina' }, { aud: 'other' }) })).status, 401);
});

test('a gateway identity never takes over a local account, or another identity, by name alone', async () => {
  const local = await hub.request('GET', '/api/servers', { token: await sign({ sub: 'u-2', preferred_username: 'alice' }) });
  assert.is(local.status, 401);
  assert.match(JSON.stringify(local.body), /not linked/);
  const impostor = await hub.request('GET', '/api/servers', { token: await sign({ sub: 'someone-else', preferred_username: 'gina' }) });
  assert.is(impostor.status, 401);
});

test.run();
