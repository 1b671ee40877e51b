/**
 * The dashboard's chart of calls and errors over the last hour: drawn from
 * the monitoring timeline, then kept current from the live call feed.
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
const call = () => hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'echo', arguments: { message: 'x' } } });
const charted = async () => Number(await page.getAttribute('[data-testid=calls-chart]', 'data-calls'));

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await addConnectedServer(hub, token, 'crashy', { command: process.execPath, args: [fixture('crashy.mjs')] });
  for (let i = 0; i < 3; i++) await call();
  browser = await launchBrowser();
  page = await signedInPage(browser, hub.url, ADMIN);
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('the chart shows the last hour\'s calls and counts new ones live', async () => {
  await page.waitForSelector('[data-testid=calls-chart] canvas');
  await waitFor(async () => (await charted()) >= 3, 5000, 'earlier calls charted');
  const before = await charted();
  await call();
  await waitFor(async () => (await charted()) === before + 1, 5000, 'a new call counted live');
  await page.screenshot({ path: path.join(artifacts, 'dashboard-chart.png'), fullPage: true });
  const timeline = (await hub.request('GET', '/api/monitoring/metrics?range=1h', { token })).body.data.timeline;
  assert.ok(timeline.length > 0 && timeline.length <= 60);
  assert.ok(timeline.reduce((n: number, p: { calls: number }) => n + p.calls, 0) >= 4);
});

test.run();
