/**
 * Console sign-in with OpenID Connect against a provider fixture: the code
 * flow with PKCE in a real browser, users created on first sign-in with the
 * default role, roles mapped from a claim, no takeover of a local account,
 * and the configuration checked at the edge.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { startHub, type TestHub } from '../helpers/hub';
import { launchBrowser } from '../helpers/browser';
import { agent, fixture } from '../helpers/mcp';
import { kill, startProcess } from '../helpers/spawn';
import { wsClient } from '../helpers/trpc';

let hub: TestHub;
let admin: string;
let idp: ChildProcess;
let issuer = '';
let browser: Browser;
const users = [
  { sub: 'u-1', preferred_username: 'olga', groups: ['staff'] },
  { sub: 'u-2', preferred_username: 'pete', groups: ['staff', 'hub-admins'] },
  { sub: 'u-3', preferred_username: 'admin', groups: [] },
];

/** Clicks through the console's sign-in button and the provider's page; the console's state after. */
async function signIn(who: string) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(hub.url + '/');
  await page.click('a:has-text("Sign in with Test IdP")');
  await page.click(`button:has-text("${who}")`);
  await page.waitForSelector('nav, [role=alert]', { timeout: 10_000 });
  const alert = await page.$('[role=alert]');
  const result = { page, ctx, error: alert ? await alert.textContent() : null, url: page.url() };
  return result;
}

const consoleToken = async (page: import('playwright-core').Page) => (await page.evaluate(() => localStorage.getItem('hub.token')))!;

test.before(async () => {
  const p = await startProcess(process.execPath, [fixture('oidc-provider.mjs')], { OIDC_USERS: JSON.stringify(users) }, /PORT=\d+/);
  idp = p.child;
  issuer = `http://127.0.0.1:${/PORT=(\d+)/.exec(p.output())![1]}`;
  hub = await startHub();
  admin = await hub.login();
  const res = await hub.request('PUT', '/api/system-config', {
    token: admin,
    body: { auth: { oidc: { enabled: true, issuer, clientId: 'hub-console', defaultRole: 'viewer', roleClaim: 'groups', roleMap: { 'hub-admins': 'admin' }, buttonLabel: 'Test IdP' } } },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  browser = await launchBrowser();
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
  await kill(idp);
});

test('a first sign-in through the provider creates the user with the default role and opens the console', async () => {
  const { page, ctx, error } = await signIn('olga');
  assert.is(error, null);
  assert.not.ok(page.url().includes('oidc='), 'the ticket left the address bar');
  assert.match((await page.textContent('body')) ?? '', /olga/);
  assert.is((await hub.request('GET', '/api/auth/me', { token: await consoleToken(page) })).body.data.user.username, 'olga');
  // No Hub password to change: the Account page says where it is managed.
  await page.goto(hub.url + '/#/account');
  await page.waitForSelector('text=You sign in through your identity provider');
  assert.is(await page.$('form[aria-label="Change password"]'), null);
  await ctx.close();
  const olga = (await hub.request('GET', '/api/users/olga', { token: admin })).body.data;
  assert.is(olga.role, 'viewer');
  const stats = await (await fetch(`${issuer}/stats`)).json();
  assert.is(stats.exchanged, 1);
  assert.is(stats.pkceFailures, 0, 'the verifier matched the challenge');
});

test('a role comes from the mapped claim, and a local account of the same name is never taken over', async () => {
  const pete = await signIn('pete');
  assert.is(pete.error, null);
  // The session works on the other doors too: an MCP session as the mapped admin.
  const c = await agent(`${hub.url}/mcp`, { token: await consoleToken(pete.page) });
  assert.ok(Array.isArray((await c.listTools()).tools));
  await c.close();
  await pete.ctx.close();
  assert.is((await hub.request('GET', '/api/users/pete', { token: admin })).body.data.role, 'admin');
  const intruder = await signIn('admin');
  assert.match(intruder.error ?? '', /admin exists in Hub and is not linked/);
  await intruder.ctx.close();
});

test('a ticket works once, a forged or missing state is refused, and a denial is shown', async () => {
  // The flow's state cookie is required: a callback without it goes back to the sign-in page with the reason.
  const bare = await fetch(`${hub.url}/auth/oidc/callback?code=x&state=y`, { redirect: 'manual' });
  assert.is(bare.status, 302);
  assert.match(decodeURIComponent(bare.headers.get('location') ?? ''), /oidc_error=.*start again/);
  const start = await fetch(`${hub.url}/auth/oidc/login`, { redirect: 'manual' });
  assert.is(start.status, 302);
  const auth = new URL(start.headers.get('location')!);
  assert.is(auth.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(auth.searchParams.get('nonce') && auth.searchParams.get('state'));
  assert.match(start.headers.get('set-cookie') ?? '', /hub_oidc=.*HttpOnly; SameSite=Lax/);
  // Through the provider by hand (as the browser would), to hold the ticket: it signs in once, never twice.
  const cookie = start.headers.get('set-cookie')!.split(';')[0]!;
  const form = new URLSearchParams([...auth.searchParams, ['who', 'u-1']]);
  const back = await fetch(`${issuer}/authorize`, { method: 'POST', body: form, redirect: 'manual' });
  const callback = new URL(back.headers.get('location')!);
  const done = await fetch(`${hub.url}${callback.pathname}${callback.search}`, { headers: { cookie }, redirect: 'manual' });
  const ticket = new URLSearchParams(done.headers.get('location')!.split('?')[1]).get('oidc')!;
  assert.ok(ticket, done.headers.get('location') ?? 'no location');
  const first = await hub.request('POST', '/api/auth/oidc/exchange', { body: { ticket } });
  assert.is(first.status, 200);
  assert.is(first.body.user.username, 'olga');
  const again = await hub.request('POST', '/api/auth/oidc/exchange', { body: { ticket } });
  assert.is(again.status, 401);
  assert.match(again.body.message, /already used/);
  const forged = await hub.request('POST', '/api/auth/oidc/exchange', { body: { ticket: 'eyJhbGciOiJIUzI1NiJ9.e30.x' } });
  assert.is(forged.status, 401);
  assert.match(forged.body.message, /ticket/);
  const { client, close } = wsClient(hub.url);
  try {
    const pub = await client.system.publicConfig.query();
    assert.equal(pub.oidc, { enabled: true, buttonLabel: 'Test IdP' });
  } finally {
    close();
  }
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(hub.url + '/');
  await page.click('a:has-text("Sign in with Test IdP")');
  await page.click('button:has-text("Deny")');
  const alert = await page.waitForSelector('[role=alert]');
  assert.match((await alert.textContent()) ?? '', /access_denied/);
  await ctx.close();
});

test('the OIDC settings are checked at the edge and the client secret is masked', async () => {
  const bad = await hub.request('PUT', '/api/system-config', { token: admin, body: { auth: { oidc: { issuer: 'http://idp.example.com' } } } });
  assert.is(bad.status, 400);
  assert.match(bad.body.message, /issuer/);
  const role = await hub.request('PUT', '/api/system-config', { token: admin, body: { auth: { oidc: { defaultRole: 'admin' } } } });
  assert.is(role.status, 400, 'no default admins');
  await hub.request('PUT', '/api/system-config', { token: admin, body: { auth: { oidc: { clientSecret: 'very-secret-value' } } } });
  await hub.request('POST', '/api/users', { token: admin, body: { username: 'mgr', password: 'mgr-pass-123', role: 'manager' } });
  const shown = await hub.request('GET', '/api/settings', { token: await hub.login('mgr', 'mgr-pass-123') });
  assert.not.ok(JSON.stringify(shown.body).includes('very-secret-value'));
  await hub.request('PUT', '/api/system-config', { token: admin, body: { auth: { oidc: { clientSecret: '' } } } });
});

test.run();
