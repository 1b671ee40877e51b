import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ADMIN, startHub, type TestHub } from '../helpers/hub';
import { artifacts, launchBrowser } from '../helpers/browser';

let hub: TestHub;
let browser: Browser;
test.before(async () => {
  hub = await startHub();
  browser = await launchBrowser();
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('a wrong password shows the error from the API', async () => {
  const page = await browser.newPage();
  await page.goto(hub.url + '/');
  await page.fill('input[name=username]', ADMIN.username);
  await page.fill('input[name=password]', 'wrong-password');
  await page.click('button[type=submit]');
  await page.waitForSelector('[role=alert]');
  assert.match(await page.textContent('[role=alert]') ?? '', /Invalid username or password/);
  await page.screenshot({ path: path.join(artifacts, 'login-error.png') });
  await page.close();
});

test('logging in shows the dashboard, which updates live over WebSocket', async () => {
  const page = await browser.newPage();
  await page.goto(hub.url + '/');
  await page.fill('input[name=username]', ADMIN.username);
  await page.fill('input[name=password]', ADMIN.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:has-text("Dashboard")');
  await page.waitForFunction(() => document.querySelector('[data-testid=live-status]')?.textContent?.includes('live'));
  // The heartbeat subscription keeps the page fresh without reloads.
  await page.waitForFunction(() => !document.querySelector('[data-testid=heartbeat]')?.textContent?.includes('waiting'));
  const first = await page.textContent('[data-testid=heartbeat]');
  await page.waitForFunction((prev) => document.querySelector('[data-testid=heartbeat]')?.textContent !== prev, first, { timeout: 5000 });
  // A change made elsewhere (REST) reaches the page through the settings subscription.
  const token = await hub.login();
  const before = Number(await page.textContent('[data-testid=revision]'));
  await hub.request('PUT', '/api/system-config', { token, body: { mcpRouter: { title: 'from-rest' } } });
  await page.waitForFunction((b) => Number(document.querySelector('[data-testid=revision]')?.textContent) > b, before, { timeout: 5000 });
  await page.screenshot({ path: path.join(artifacts, 'dashboard.png') });
  // The session survives a reload (token kept), and sign-out returns to the login page.
  await page.reload();
  await page.waitForSelector('h1:has-text("Dashboard")');
  await page.click('button:has-text("Sign out")');
  await page.waitForSelector('input[name=password]');
  await page.close();
});

test.run();
