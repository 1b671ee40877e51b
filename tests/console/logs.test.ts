/**
 * The logs page: the newest line stays in view unless the operator scrolled
 * away, pause holds lines instead of dropping them, clear asks first, the
 * server filter matches part of a name, the level filter says "and worse".
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startHub, type TestHub } from '../helpers/hub';
import { artifacts, launchBrowser, signedInPage } from '../helpers/browser';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let browser: Browser;
let page: Page;
let token: string;
const lines = () => page.$$eval('[data-testid=log-lines] li', (li) => li.map((l) => l.textContent ?? ''));
const call = (server: string, message: string) => hub.request('POST', `/api/tools/call/${server}`, { token, body: { toolName: 'echo', arguments: { message } } });

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  for (const name of ['alpha-one', 'beta']) {
    await hub.request('POST', '/api/servers', { token, body: { name, config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
    await waitFor(async () => (await hub.request('GET', `/api/servers/${name}`, { token })).body.data.status === 'connected', 10_000, `${name} connected`);
  }
  browser = await launchBrowser();
  page = await signedInPage(browser, hub.url, ADMIN);
  await page.goto(hub.url + '/#/logs');
  await page.waitForSelector('[data-testid=log-lines]');
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('the level filter says "and worse", and the server filter matches part of a name', async () => {
  const options = await page.$$eval('select[aria-label=Level] option', (o) => o.map((x) => x.textContent));
  assert.ok(options.includes('warn and worse'), options.join());
  await call('alpha-one', 'from-alpha');
  await call('beta', 'from-beta');
  await waitFor(async () => (await lines()).some((l) => l.includes('echo on beta')), 5000, 'both lines');
  await page.fill('input[aria-label="Server filter"]', 'PHA');
  await waitFor(async () => (await lines()).every((l) => l.includes('alpha-one')), 3000, 'only alpha-one');
  assert.ok((await lines()).length > 0);
  await page.fill('input[aria-label="Server filter"]', '');
});

test('pause keeps new lines aside and resume shows them', async () => {
  await page.click('button:has-text("Pause")');
  const before = (await lines()).length;
  await call('beta', 'while-paused');
  await page.waitForSelector('button:has-text("Resume (1 new)")', { timeout: 5000 }).catch(async () => page.waitForSelector('button:has-text("new)")'));
  assert.is((await lines()).length, before, 'nothing added while paused');
  await page.click('button:has-text("Resume")');
  await waitFor(async () => (await lines()).length > before, 3000, 'held lines shown');
});

test('the newest line stays in view, unless the operator scrolled up', async () => {
  const before = (await lines()).length;
  for (let i = 0; i < 60; i++) await call('beta', `line-${i}`);
  const bottom = () => page.$eval('[data-testid=log-lines]', (el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 30);
  await waitFor(async () => (await lines()).length >= before + 60 && (await bottom()), 5000, 'following the tail');
  // Scroll up as a reader would; a batch of lines still arriving may pull the view down first.
  await waitFor(async () => {
    await page.$eval('[data-testid=log-lines]', (el) => el.scrollTo(0, 0));
    await new Promise((r) => setTimeout(r, 150));
    return page.isVisible('[data-testid=jump-newest]');
  }, 5000, 'the jump button');
  await call('beta', 'after-scroll');
  await new Promise((r) => setTimeout(r, 300));
  assert.not.ok(await bottom(), 'stays where the operator is reading');
  await page.click('[data-testid=jump-newest]');
  await waitFor(bottom, 3000, 'back at the newest line');
  await page.screenshot({ path: path.join(artifacts, 'logs-page.png'), fullPage: true });
});

test('clear asks first, and does nothing when the operator says no', async () => {
  let asked = '';
  page.once('dialog', (d) => void ((asked = d.message()), d.dismiss()));
  await page.click('button:has-text("Clear")');
  await waitFor(() => asked !== '', 3000, 'the question');
  assert.ok((await lines()).length > 0, 'still there');
  page.once('dialog', (d) => void d.accept());
  await page.click('button:has-text("Clear")');
  await waitFor(async () => (await lines()).length === 0, 3000, 'cleared');
});

test.run();
