import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startHub, type TestHub } from '../helpers/hub';
import { artifacts, launchBrowser } from '../helpers/browser';
import { agent, fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let browser: Browser;
let page: Page;
const shot = (name: string) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });

async function signIn(p: Page, username: string, password: string) {
  await p.goto(hub.url + '/');
  await p.fill('input[name=username]', username);
  await p.fill('input[name=password]', password);
  await p.click('button[type=submit]');
  await p.waitForSelector('h1:has-text("Dashboard")');
}

test.before(async () => {
  hub = await startHub();
  browser = await launchBrowser();
  page = await browser.newPage();
  await signIn(page, ADMIN.username, ADMIN.password);
});
test.after(async () => {
  await browser?.close();
  await hub?.close();
});

test('a bad form value shows an error next to the field, before any request', async () => {
  await page.goto(hub.url + '/#/servers');
  await page.click('button:has-text("Add a server")');
  await page.waitForSelector('form[aria-label="Add server"]');
  await page.fill('input[name=name]', 'bad/name');
  await page.click('form[aria-label="Add server"] button[type=submit]');
  await page.waitForSelector('.field-error');
  assert.match((await page.textContent('.field-error')) ?? '', /slash|must/i);
  await shot('servers-form-error');
});

test('adding a stdio server shows it connected without a reload', async () => {
  await page.fill('input[name=name]', 'crashy');
  await page.selectOption('select[name=type]', 'stdio');
  await page.fill('input[name=command]', process.execPath);
  await page.fill('input[name="arg-0"]', fixture('crashy.mjs'));
  await page.click('form[aria-label="Add server"] button[type=submit]');
  await page.waitForSelector('tr[data-server="crashy"] [data-status="connected"]', { timeout: 15_000 });
  await shot('servers');
});

test('disabling a tool in the console removes it from an MCP client tools/list', async () => {
  const token = await hub.login();
  const c = await agent(hub.url + '/api/mcp', { token });
  assert.ok((await c.listTools()).tools.some((t) => t.name === 'crashy-echo'));
  await page.click('tr[data-server="crashy"] button.link');
  await page.waitForSelector('[aria-label="Enable tool echo"]');
  await page.uncheck('[aria-label="Enable tool echo"]');
  await waitFor(async () => !(await c.listTools()).tools.some((t) => t.name === 'crashy-echo'), 5000, 'tool gone for the agent');
  await page.check('[aria-label="Enable tool echo"]');
  // The next test calls it: wait until it is back.
  await waitFor(async () => (await c.listTools()).tools.some((t) => t.name === 'crashy-echo'), 5000, 'tool back for the agent');
  await c.close();
});

test('the try-it panel calls a tool with a form made from its schema', async () => {
  await page.click('li[data-tool="echo"] button:has-text("Try it")');
  await page.fill('form[aria-label="Try echo"] input[name=message]', 'from the console');
  await page.click('form[aria-label="Try echo"] button[type=submit]');
  await page.waitForSelector('[data-testid=tool-result]');
  assert.match((await page.textContent('[data-testid=tool-result]')) ?? '', /echo: from the console/);
  await shot('server-detail');
});

test('a log line appears live after a tool call', async () => {
  await page.goto(hub.url + '/#/logs');
  await page.waitForSelector('[data-testid=log-lines]');
  const token = await hub.login();
  await hub.request('POST', '/api/tools/call/crashy', { token, body: { toolName: 'echo', arguments: { message: 'live-log-marker' } } });
  await page.waitForFunction(() => /echo on crashy succeeded/.test(document.querySelector('[data-testid=log-lines]')?.textContent ?? ''), undefined, { timeout: 5000 });
  await shot('logs');
});

test('a group with a tool selection is created from the console', async () => {
  await page.goto(hub.url + '/#/groups');
  await page.fill('input[name=groupName]', 'console-group');
  await page.click('form[aria-label="Create group"] button[type=submit]');
  await page.waitForSelector('[data-group="console-group"]');
  await page.selectOption('[aria-label="Add server to console-group"]', 'crashy');
  await page.waitForSelector('[aria-label="console-group crashy pid"]');
  await page.uncheck('[aria-label="console-group crashy pid"]');
  await page.click('[data-group-server="crashy"] button:has-text("Save selection")');
  const token = await hub.login();
  await waitFor(async () => {
    const g = await hub.request('GET', '/api/groups/console-group/server-configs', { token });
    const tools = g.body.data[0]?.tools;
    return Array.isArray(tools) && !tools.includes('pid') && tools.includes('echo');
  }, 5000, 'selection saved');
  await shot('groups');
});

test('a user created in the console sees only their servers', async () => {
  const token = await hub.login();
  await hub.request('POST', '/api/servers', { token, body: { name: 'other', config: { type: 'sse', url: 'http://127.0.0.1:9/sse' } } });
  await page.goto(hub.url + '/#/users');
  await page.fill('input[name=newUsername]', 'frank');
  await page.fill('input[name=newPassword]', 'frank-pass');
  await page.check('[aria-label="Grant crashy"]');
  await page.click('form[aria-label="Create user"] button[type=submit]');
  await page.waitForSelector('tr[data-user="frank"]');
  await shot('users');
  const other = await browser.newPage();
  await signIn(other, 'frank', 'frank-pass');
  await other.goto(hub.url + '/#/servers');
  await other.waitForSelector('tr[data-server="crashy"]');
  assert.is(await other.$('tr[data-server="other"]'), null);
  await other.close();
});

test('a server is edited from the console and reconnects with its new configuration', async () => {
  await page.goto(hub.url + '/#/servers');
  await page.click('tr[data-server="crashy"] button:has-text("Edit")');
  await page.waitForSelector('h2:has-text("Edit crashy")');
  await page.fill('input[name=name]', 'crashy-renamed');
  await page.click('form[aria-label="Add server"] button[type=submit]');
  await page.waitForSelector('tr[data-server="crashy-renamed"] [data-status="connected"]', { timeout: 15_000 });
  assert.is(await page.$('tr[data-server="crashy"]'), null);
});

test('settings save with a clear message, and a bad value shows the API error', async () => {
  await page.goto(hub.url + '/#/settings');
  await page.waitForSelector('h1:has-text("Settings")');
  await page.fill('form[aria-label="Install settings"] input[name=baseUrl]', 'not a url');
  await page.click('form[aria-label="Install settings"] button[type=submit]');
  await page.waitForSelector('[role=alert]');
  assert.match((await page.textContent('[role=alert]')) ?? '', /install\.baseUrl/);
  await page.fill('form[aria-label="Install settings"] input[name=baseUrl]', 'https://hub.example.com');
  await page.click('form[aria-label="Install settings"] button[type=submit]');
  await page.waitForSelector('[role=status]:has-text("Install settings saved")');
  await shot('settings');
});

test('the settings page shows the smart-routing index and tries a query', async () => {
  const token = await hub.login();
  await hub.request('PUT', '/api/system-config', { token, body: { smartRouting: { enabled: true } } });
  await page.goto(hub.url + '/#/settings');
  await page.waitForFunction(() => /tools indexed/.test(document.querySelector('[data-testid=smart-status]')?.textContent ?? ''));
  await page.fill('[aria-label="Try a query"]', 'echo a message');
  await page.click('button:has-text("Search")');
  await page.waitForFunction(() => /crashy-renamed-echo/.test(document.querySelector('[data-testid=smart-hits]')?.textContent ?? ''));
});

test('dashboard and settings pages render', async () => {
  await page.goto(hub.url + '/#/dashboard');
  await page.waitForSelector('h1:has-text("Dashboard")');
  await page.setViewportSize({ width: 390, height: 800 });
  await shot('dashboard-phone');
});

test('with MFA on, the login page asks for the authenticator code', async () => {
  const { TOTP, Secret } = await import('otpauth');
  const token = await hub.login();
  await hub.request('POST', '/api/users', { token, body: { username: 'gina', password: 'gina-pass' } });
  const gt = await hub.login('gina', 'gina-pass');
  const secret = (await hub.request('POST', '/api/auth/mfa/enable', { token: gt, body: { type: 'totp', password: 'gina-pass' } })).body.data.secret;
  const totp = new TOTP({ secret: Secret.fromBase32(secret) });
  await hub.request('POST', '/api/auth/mfa/verify', { token: gt, body: { code: totp.generate() } });
  const p = await browser.newPage();
  await p.goto(hub.url + '/');
  await p.fill('input[name=username]', 'gina');
  await p.fill('input[name=password]', 'gina-pass');
  await p.click('button[type=submit]');
  await p.waitForSelector('input[name=mfaCode]');
  await p.fill('input[name=mfaCode]', totp.generate({ timestamp: Date.now() + 30_000 }));
  await p.click('button[type=submit]');
  await p.waitForSelector('h1:has-text("Dashboard")');
  await p.screenshot({ path: path.join(artifacts, 'login-mfa.png') });
  await p.close();
});

test.run();
