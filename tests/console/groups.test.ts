/**
 * Groups in the console: all/none per server and kind, prompt selections,
 * one save for the whole draft, visibility, and members managed from the group.
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
const configs = async () => (await hub.request('GET', '/api/groups/team/server-configs', { token })).body.data[0];

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await addConnectedServer(hub, token, 'crashy', { command: process.execPath, args: [fixture('crashy.mjs')] });
  await hub.request('POST', '/api/groups', { token, body: { name: 'team', servers: ['crashy'] } });
  await hub.request('POST', '/api/users', { token, body: { username: 'mia', password: 'mia-pass-123', role: 'user' } });
  browser = await launchBrowser();
  page = await signedInPage(browser, hub.url, ADMIN);
  await page.goto(hub.url + '/#/groups');
  await page.waitForSelector('[data-group-server="crashy"]');
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('"none" then two tools and no prompt, saved at once as one selection', async () => {
  // A group offering all of a server's tools shows them all ticked once the server list is in.
  await waitFor(() => page.isChecked('[aria-label="team crashy echo"]'), 5000, 'all ticked');
  await page.click('[aria-label="Select no tools of crashy"]');
  await page.check('[aria-label="team crashy echo"]');
  await page.check('[aria-label="team crashy pid"]');
  await page.click('[aria-label="Select no prompts of crashy"]');
  assert.is((await configs()).tools, 'all', 'nothing saved before the save');
  await page.click('[data-group-server="crashy"] button:has-text("Save selection")');
  await waitFor(async () => Array.isArray((await configs()).tools) && Array.isArray((await configs()).prompts), 5000, 'saved');
  const c = await configs();
  assert.equal([...c.tools].sort(), ['echo', 'pid']);
  assert.equal(c.prompts, []);
  await page.click('[aria-label="Select all tools of crashy"]');
  await page.click('[aria-label="Select all prompts of crashy"]');
  await page.click('[data-group-server="crashy"] button:has-text("Save selection")');
  await waitFor(async () => (await configs()).tools === 'all' && (await configs()).prompts === 'all', 5000, 'all again');
});

test('visibility is set from the group', async () => {
  await page.selectOption('[aria-label="Visibility of team"]', 'public');
  await waitFor(async () => (await hub.request('GET', '/api/groups/team', { token })).body.data.visibility === 'public', 5000, 'public');
});

test('a member is added to and removed from the group itself', async () => {
  await page.waitForSelector('[aria-label="Add a member to team"] option[value="mia"]', { state: 'attached' });
  await page.selectOption('[aria-label="Add a member to team"]', 'mia');
  await page.waitForSelector('[data-member="mia"]');
  const mia = async () => (await hub.request('GET', '/api/users/mia', { token })).body.data.groups as string[];
  assert.is((await mia()).length, 1);
  await page.screenshot({ path: path.join(artifacts, 'groups-page.png'), fullPage: true });
  await page.click('[aria-label="Remove mia from team"]');
  await page.waitForSelector('[data-member="mia"]', { state: 'detached' });
  assert.equal(await mia(), []);
});

test.run();
