/**
 * The account page: any signed-in user changes their password, sets up and
 * turns off two-factor sign-in from a QR code, manages their own API keys
 * (permissions and expiry), and signs out everywhere.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { TOTP, Secret } from 'otpauth';
import { ADMIN, startHub, type TestHub } from '../helpers/hub';
import { artifacts, launchBrowser } from '../helpers/browser';
import { waitFor } from '../helpers/mcp';

let hub: TestHub;
let browser: Browser;
let page: Page;
const USER = { username: 'rita', password: 'rita-pass-1' };

async function signIn(username: string, password: string) {
  await page.goto(hub.url + '/');
  await page.fill('input[name=username]', username);
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:has-text("Dashboard")');
}

test.before(async () => {
  hub = await startHub();
  const token = await hub.login();
  await hub.request('POST', '/api/users', { token, body: { ...USER, role: 'user' } });
  browser = await launchBrowser();
  page = await browser.newPage();
  await signIn(USER.username, USER.password);
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('a user who is not an admin changes their own password, and the old one stops working', async () => {
  await page.goto(hub.url + '/#/account');
  await page.waitForSelector('h1:has-text("Account")');
  const form = 'form[aria-label="Change password"]';
  await page.fill(`${form} input[name=currentPassword]`, USER.password);
  await page.fill(`${form} input[name=newPassword]`, 'rita-pass-2');
  await page.fill(`${form} input[name=repeat]`, 'rita-pass-3');
  await page.click(`${form} button[type=submit]`);
  assert.match((await page.textContent(`${form} .field-error`)) ?? '', /differ/);
  await page.fill(`${form} input[name=repeat]`, 'rita-pass-2');
  await page.click(`${form} button[type=submit]`);
  await page.waitForSelector(`${form} [role=status]`);
  assert.is((await hub.request('POST', '/api/auth/login', { body: USER })).status, 401);
  assert.is((await hub.request('POST', '/api/auth/login', { body: { ...USER, password: 'rita-pass-2' } })).status, 200);
  USER.password = 'rita-pass-2';
});

test('two-factor sign-in is set up from a QR code and turned off again', async () => {
  await page.fill('form[aria-label="Enable two-factor"] input[name=password]', USER.password);
  await page.click('form[aria-label="Enable two-factor"] button[type=submit]');
  await page.waitForSelector('img[alt^="QR code"], [aria-label="Two-factor sign-in"] [role=alert]');
  assert.not.ok(await page.$('[aria-label="Two-factor sign-in"] [role=alert]'), (await page.textContent('[aria-label="Two-factor sign-in"]')) ?? '');
  const src = (await page.getAttribute('img[alt^="QR code"]', 'src')) ?? '';
  assert.match(src, /^data:image\/png;base64,/);
  const secret = (await page.textContent('[data-testid=mfa-secret]'))!.trim();
  const totp = new TOTP({ secret: Secret.fromBase32(secret) });
  await page.fill('form[aria-label="Confirm two-factor"] input[name=code]', totp.generate());
  await page.click('form[aria-label="Confirm two-factor"] button[type=submit]');
  await waitFor(async () => (await page.textContent('[data-testid=mfa-state]')) === 'On', 5000, 'MFA on');
  await page.screenshot({ path: path.join(artifacts, 'account.png'), fullPage: true });
  await page.fill('form[aria-label="Disable two-factor"] input[name=code]', totp.generate({ timestamp: Date.now() + 30_000 }));
  await page.click('form[aria-label="Disable two-factor"] button[type=submit]');
  await waitFor(async () => (await page.textContent('[data-testid=mfa-state]')) === 'Off', 5000, 'MFA off');
});

test('the user creates an API key with chosen permissions and an expiry, sees it listed, and revokes it', async () => {
  const form = 'form[aria-label="Create API key"]';
  await page.click(`${form} button[type=submit]`);
  assert.match((await page.textContent(`${form} .field-error`)) ?? '', /required|at least one/);
  await page.fill(`${form} input[name=name]`, 'ci-bot');
  await page.check(`${form} input[value="servers:read"]`);
  await page.fill(`${form} input[name=expiresAt]`, '2099-12-31');
  await page.click(`${form} button[type=submit]`);
  await page.waitForSelector('[data-testid=new-key]');
  const key = (await page.textContent('[data-testid=new-key]'))!.trim();
  const row = await page.waitForSelector('tr[data-key="ci-bot"]');
  assert.match((await row.textContent()) ?? '', /servers:read/);
  assert.match((await row.textContent()) ?? '', /2099|12\/31/);
  assert.is((await hub.request('GET', '/api/servers', { headers: { authorization: `Bearer ${key}` } })).status, 200);
  await page.click('[aria-label="Revoke ci-bot"]');
  await page.waitForSelector('tr[data-key="ci-bot"]', { state: 'detached' });
  assert.is((await hub.request('GET', '/api/servers', { headers: { authorization: `Bearer ${key}` } })).status, 401);
});

test('signing out everywhere ends this session too', async () => {
  page.once('dialog', (d) => void d.accept());
  await page.click('button:has-text("Sign out everywhere")');
  await page.waitForSelector('input[name=username]');
});

test.run();
