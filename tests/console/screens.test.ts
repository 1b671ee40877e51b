/**
 * Every page at desktop and phone width (screenshots saved for review, no
 * sideways scrolling at 390 px), and a status change made through REST
 * reaching an open console within a second.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, addConnectedServer, startHub, type TestHub } from '../helpers/hub';
import { artifacts, launchBrowser, signedInPage } from '../helpers/browser';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let browser: Browser;
let page: Page;
let token: string;
const pages = ['dashboard', 'servers', 'groups', 'users', 'logs', 'settings', 'account'];

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await addConnectedServer(hub, token, 'crashy', { command: process.execPath, args: [fixture('crashy.mjs')] });
  await hub.request('POST', '/api/groups', { token, body: { name: 'team', servers: ['crashy'] } });
  browser = await launchBrowser();
  page = await signedInPage(browser, hub.url, ADMIN);
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('disabling a server through REST shows on the open console within a second, and back', async () => {
  await page.goto(hub.url + '/#/servers');
  await page.waitForSelector('tr[data-server="crashy"] [data-status="connected"]');
  for (const [enabled, status] of [[false, 'disabled'], [true, 'connected']] as const) {
    const started = Date.now();
    await hub.request('POST', '/api/servers/crashy/toggle', { token, body: { enabled } });
    await page.waitForSelector(`tr[data-server="crashy"] [data-status="${status}"]`, { timeout: 5000 });
    const took = Date.now() - started;
    console.log(`    ${status} shown after ${took} ms`);
    if (status === 'disabled') assert.ok(took < 1000, `${took} ms`);
  }
});

test('every page renders at desktop and phone width, and fits a 390 px screen', async () => {
  for (const [width, height] of [[1280, 800], [390, 800]] as const) {
    await page.setViewportSize({ width, height });
    for (const p of pages) {
      await page.goto(`${hub.url}/#/${p}`);
      await page.waitForSelector('main h1');
      await page.waitForTimeout(150);
      await page.screenshot({ path: path.join(artifacts, `page-${p}-${width}.png`), fullPage: true });
      if (width === 390) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 1, `${p} scrolls sideways by ${overflow} px at 390 px`);
      }
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

test.run();
