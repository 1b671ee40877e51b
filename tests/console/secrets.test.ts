/**
 * A user sets their own secret for a server on the Account page: the page
 * says which servers need it and whether it is set, never shows it again,
 * and the user's calls then carry it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { addConnectedServer, startHub, type TestHub } from '../helpers/hub';
import { launchBrowser, signedInPage } from '../helpers/browser';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let browser: Browser;
let page: Page;
const ALICE = { username: 'alice', password: 'alice-pass-123' };

test.before(async () => {
  hub = await startHub();
  const admin = await hub.login();
  await addConnectedServer(hub, admin, 'tickets', { command: process.execPath, args: [fixture('crashy.mjs')], env: { API_TOKEN: '${user.secret.TICKETS_TOKEN}' } });
  await hub.request('POST', '/api/users', { token: admin, body: { ...ALICE, role: 'user', servers: ['tickets'] } });
  browser = await launchBrowser();
  page = await signedInPage(browser, hub.url, ALICE);
  await page.goto(hub.url + '/#/account');
  await page.waitForSelector('tr[data-secret="TICKETS_TOKEN"]');
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('a missing secret is set from the Account page, is never shown again, and reaches the upstream', async () => {
  const row = 'tr[data-secret="TICKETS_TOKEN"]';
  assert.match((await page.textContent(row)) ?? '', /tickets.*missing/);
  await page.fill(`${row} input[name=value]`, 'tk-alice-42');
  await page.click(`${row} button:has-text("Save")`);
  await waitFor(async () => /set/.test((await page.textContent(`${row} .badge`)) ?? ''), 5000, 'shown as set');
  assert.not.ok((await page.content()).includes('tk-alice-42'), 'the value is not on the page');
  await page.screenshot({ path: 'test-artifacts/account-secrets.png' });
  const token = await hub.login(ALICE.username, ALICE.password);
  const r = await hub.request('POST', '/api/tools/call/tickets', { token, body: { toolName: 'env', arguments: { name: 'API_TOKEN' } } });
  assert.is(r.body.data.content[0].text, 'tk-alice-42');
  await page.click(`${row} button:has-text("Remove")`);
  await waitFor(async () => /missing/.test((await page.textContent(`${row} .badge`)) ?? ''), 5000, 'shown as missing');
});

test('a key gets its own value from the Account page, and its calls carry it', async () => {
  const token = await hub.login(ALICE.username, ALICE.password);
  const created = await hub.request('POST', '/api/auth/api-keys', { token, body: { name: 'robot', permissions: ['tools:execute', 'servers:execute'] } });
  await page.goto(hub.url + '/#/dashboard');
  await page.goto(hub.url + '/#/account');
  await page.click('button[aria-label="Secrets of robot"]');
  const row = '[aria-label="Secrets of key robot"] tr[data-secret="TICKETS_TOKEN"]';
  await page.waitForSelector(row);
  await page.fill(`${row} input[name=value]`, 'tk-robot-7');
  await page.click(`${row} button:has-text("Save")`);
  await waitFor(async () => /set/.test((await page.textContent(`${row} .badge`)) ?? ''), 5000, 'shown as set');
  const r = await hub.request('POST', '/api/tools/call/tickets', { headers: { 'x-api-key': created.body.data.key }, body: { toolName: 'env', arguments: { name: 'API_TOKEN' } } });
  assert.is(r.body.data.content[0].text, 'tk-robot-7');
});

test("the server's detail names the secret each caller brings, and links to where to set it", async () => {
  await page.goto(hub.url + '/#/servers');
  await page.click('tr[data-server="tickets"] button.link');
  const note = await page.waitForSelector('[data-testid=caller-secrets]');
  assert.match((await note.textContent()) ?? '', /TICKETS_TOKEN/);
  assert.is(await note.$eval('a', (a) => a.getAttribute('href')), '#/account');
});

test.run();
