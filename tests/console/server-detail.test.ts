/**
 * A server's detail: tool search with bulk switches on what it shows, a
 * try-it form that checks required fields and types its inputs, and prompts
 * whose descriptions are editable and which run like tools.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, addConnectedServer, startHub, type TestHub } from '../helpers/hub';
import { launchBrowser, signedInPage } from '../helpers/browser';
import { agent, fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let browser: Browser;
let page: Page;
let token: string;

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  await addConnectedServer(hub, token, 'crashy', { command: process.execPath, args: [fixture('crashy.mjs')] });
  browser = await launchBrowser();
  page = await signedInPage(browser, hub.url, ADMIN);
  await page.goto(hub.url + '/#/servers');
  await page.click('tr[data-server="crashy"] button.link');
  await page.waitForSelector('li[data-tool="echo"]');
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('a tool search narrows the list, and "Disable shown" switches off exactly those tools', async () => {
  await page.fill('input[aria-label="Search tools"]', 'ech');
  await waitFor(async () => (await page.$$('li[data-tool]')).length === 1, 3000, 'one tool shown');
  await page.click('button:has-text("Disable shown")');
  const c = await agent(hub.url + '/mcp', { token });
  await waitFor(async () => {
    const names = (await c.listTools()).tools.map((t) => t.name);
    return !names.includes('crashy-echo') && names.includes('crashy-pid');
  }, 5000, 'echo off, the others on');
  await page.click('button:has-text("Enable shown")');
  await waitFor(async () => (await c.listTools()).tools.some((t) => t.name === 'crashy-echo'), 5000, 'echo back');
  await c.close();
  await page.fill('input[aria-label="Search tools"]', '');
});

test('try-it refuses a missing required field in words and types number inputs', async () => {
  await page.click('li[data-tool="echo"] button:has-text("Try it")');
  await page.click('form[aria-label="Try echo"] button[type=submit]');
  assert.match((await page.textContent('form[aria-label="Try echo"] [role=alert]')) ?? '', /message: is required/);
  assert.is(await page.$('[data-testid=tool-result]'), null, 'nothing was called');
  await page.click('li[data-tool="freeze"] button:has-text("Try it")');
  assert.is(await page.getAttribute('form[aria-label="Try freeze"] input[name=ms]', 'type'), 'number');
});

test('a prompt runs with its arguments, and its description is edited in place', async () => {
  await page.click('li[data-prompt="greet"] button:has-text("Run")');
  await page.fill('form[aria-label="Run greet"] input[name=name]', 'Ada');
  await page.click('form[aria-label="Run greet"] button[type=submit]');
  await page.waitForSelector('[data-testid=prompt-result]');
  assert.match((await page.textContent('[data-testid=prompt-result]')) ?? '', /Ada/);
  await page.click('li[data-prompt="greet"] button:has-text("Edit description")');
  await page.fill('input[aria-label="Prompt description"]', 'Says hello nicely');
  await page.click('li[data-prompt="greet"] form button[type=submit]');
  await waitFor(async () => {
    const prompts = (await hub.request('GET', '/api/servers/crashy', { token })).body.data.prompts as Array<{ name: string; description: string }>;
    return prompts.find((p) => p.name === 'greet')?.description === 'Says hello nicely';
  }, 5000, 'description saved');
});

test.run();
