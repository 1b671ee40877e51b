/**
 * Server forms: stdio arguments one per row (a path with a space is one
 * argument), a pasted command line split as a shell would, and shell syntax
 * refused with a clear message.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startHub, type TestHub } from '../helpers/hub';
import { launchBrowser, signedInPage } from '../helpers/browser';
import { fixture } from '../helpers/mcp';
import { repoRoot } from '../helpers/process';

let hub: TestHub;
let browser: Browser;
let page: Page;
let spaced = '';
let dir = '';

test.before(async () => {
  // A fixture under a folder whose name has a space: one argument, not two.
  // Inside tests/ so the copy still finds the SDK in tests/node_modules.
  dir = await mkdtemp(path.join(repoRoot, 'tests', '.tmp forms '));
  spaced = path.join(dir, 'crashy copy.mjs');
  await copyFile(fixture('crashy.mjs'), spaced);
  hub = await startHub();
  browser = await launchBrowser();
  page = await signedInPage(browser, hub.url, ADMIN);
  await page.goto(hub.url + '/#/servers');
  await page.waitForSelector('h1:has-text("Servers")');
});

const openForm = async () => {
  if (!(await page.isVisible('form[aria-label="Add server"]'))) await page.click('button:has-text("Add a server")');
  await page.waitForSelector('form[aria-label="Add server"]');
};
test.after(async () => {
  await browser?.close();
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

test('a pasted command line with a quoted path fills the command and one argument per row', async () => {
  await openForm();
  await page.fill('input[name=commandLine]', `"${process.execPath}" "${spaced}"`);
  await page.click('button:has-text("Fill from command line")');
  assert.is(await page.inputValue('input[name=command]'), process.execPath);
  assert.is(await page.inputValue('input[name="arg-0"]'), spaced);
  await page.fill('input[name=name]', 'spaced');
  await page.click('form[aria-label="Add server"] button[type=submit]');
  await page.waitForSelector('tr[data-server="spaced"] [data-status="connected"]', { timeout: 15_000 });
  const token = await hub.login();
  const cfg = (await hub.request('GET', '/api/servers/spaced', { token })).body.data.config;
  assert.equal(cfg.args, [spaced]);
});

test('shell syntax in a pasted command line is refused in words', async () => {
  await openForm();
  await page.fill('input[name=commandLine]', 'node server.js | tee out.txt');
  await page.click('button:has-text("Fill from command line")');
  assert.match((await page.textContent('fieldset.args .field-error')) ?? '', /no pipes/);
});

test('a server from the catalogue is found by search and fills the add form with one click', async () => {
  if (await page.isVisible('form[aria-label="Add server"]')) await page.click('[aria-label="Close the form"]');
  await page.click('button:has-text("Browse installable servers")');
  await page.fill('input[aria-label="Search the catalogue"]', 'github');
  await page.waitForSelector('li[data-entry="github"]');
  assert.is(await page.$('li[data-entry="memory"]'), null, 'the search narrows the list');
  await page.click('li[data-entry="github"] button:has-text("Install")');
  await page.waitForSelector('form[aria-label="Add server"]');
  assert.is(await page.inputValue('input[name=name]'), 'github');
  assert.is(await page.inputValue('input[name=command]'), 'npx');
  assert.is(await page.inputValue('input[name="arg-0"]'), '-y');
  const envNames = await page.$$eval('input[aria-label="Environment name"]', (els) => els.map((e) => (e as HTMLInputElement).value));
  assert.equal(envNames, ['GITHUB_PERSONAL_ACCESS_TOKEN'], 'the variable to fill is in the form');
});

test('form problems are said in words, and a new problem clears an old success notice', async () => {
  assert.ok(await page.$('section > [role=status]'), 'the success notice of the server added earlier');
  await openForm();
  await page.fill('input[name=name]', 'notice-check');
  await page.selectOption('select[name=type]', 'sse');
  await page.fill('input[name=url]', 'not a url');
  await page.click('form[aria-label="Add server"] button[type=submit]');
  const text = (await page.textContent('form[aria-label="Add server"] .field-error')) ?? '';
  assert.not.match(text, /^Invalid|Too (big|small)|expected/i);
  assert.match(text, /URL|url/);
  assert.is(await page.$('section > [role=status]'), null, 'no success notice left over');
});

test('an import that fails names the entry', async () => {
  await page.fill('textarea[name=import]', JSON.stringify({ mcpServers: { 'fine-one': { command: process.execPath, args: [fixture('crashy.mjs')] }, 'bad/name': { command: 'x' } } }));
  await page.click('button:has-text("Import")');
  await page.waitForSelector('section > [role=alert]');
  assert.match((await page.textContent('section > [role=alert]')) ?? '', /Import of "bad\/name"/);
});

test.run();
