/**
 * A restricted user's console shows only what they may do, with real values:
 * no admin pages in the menu, no controls that would fail after the click,
 * and a dashboard that counts their servers and groups.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, type TestHub } from '../helpers/hub';
import { artifacts, launchBrowser } from '../helpers/browser';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let browser: Browser;
let page: Page;

test.before(async () => {
  hub = await startHub();
  const token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'mine', config: { command: process.execPath, args: [fixture('crashy.mjs')] } } });
  await hub.request('POST', '/api/servers', { token, body: { name: 'theirs', config: { type: 'sse', url: 'http://127.0.0.1:9/sse' } } });
  const group = (await hub.request('POST', '/api/groups', { token, body: { name: 'team', servers: ['mine'] } })).body.data;
  await hub.request('POST', '/api/users', { token, body: { username: 'ursula', password: 'ursula-pass-1', role: 'user', servers: ['mine'], groups: [group.id] } });
  await waitFor(async () => (await hub.request('GET', '/api/servers/mine', { token })).body.data.status === 'connected', 10_000, 'mine connected');
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.goto(hub.url + '/');
  await page.fill('input[name=username]', 'ursula');
  await page.fill('input[name=password]', 'ursula-pass-1');
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:has-text("Dashboard")');
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('the menu holds only the pages the user may open, and a typed address says so instead of failing', async () => {
  await page.waitForSelector('nav a[href="#/servers"]');
  const links = await page.$$eval('nav[aria-label=Main] a', (as) => as.map((a) => a.textContent));
  assert.ok(links.includes('Servers') && links.includes('Account'), links.join());
  assert.not.ok(links.includes('Users') || links.includes('Settings'), links.join());
  await page.goto(hub.url + '/#/settings');
  await page.waitForSelector('[data-testid=no-access]');
});

test('the dashboard counts the user\'s own servers and groups, with no value left loading', async () => {
  await page.goto(hub.url + '/#/dashboard');
  await waitFor(async () => (await page.textContent('[data-testid=server-count]')) === '1', 5000, 'one server');
  assert.is(await page.textContent('[data-testid=group-count]'), '1');
  await waitFor(async () => Number(await page.textContent('[data-testid=tool-count]')) > 0, 5000, 'the user\'s tools counted');
  await waitFor(async () => !(await page.textContent('section.cards'))!.includes('…'), 5000, 'nothing left loading');
  await page.screenshot({ path: path.join(artifacts, 'dashboard-restricted.png'), fullPage: true });
});

test('the servers and groups pages show no add, edit, delete or enable controls to a user who may not use them', async () => {
  await page.goto(hub.url + '/#/servers');
  await page.waitForSelector('tr[data-server="mine"]');
  assert.is(await page.$('tr[data-server="theirs"]'), null);
  assert.is(await page.$('form[aria-label="Add server"]'), null);
  assert.is(await page.$('[aria-label="Enable mine"]'), null);
  assert.is(await page.$('tr[data-server="mine"] button:has-text("Delete")'), null);
  await page.screenshot({ path: path.join(artifacts, 'servers-restricted.png'), fullPage: true });
  await page.goto(hub.url + '/#/groups');
  await page.waitForSelector('h2:has-text("team")');
  assert.is(await page.$('form[aria-label="Create group"]'), null);
  assert.is(await page.$('h2:has-text("team") button:has-text("Delete")'), null);
});

test('on a 390 px phone the servers table becomes cards that fit the screen', async () => {
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(hub.url + '/#/servers');
  await page.waitForSelector('tr[data-server="mine"]');
  const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
  assert.ok(fits, 'no sideways scrolling');
  assert.is(await page.$eval('table.list thead', (el) => getComputedStyle(el).display), 'none');
  await page.screenshot({ path: path.join(artifacts, 'servers-phone.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
});

test.run();
