import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from './process';

export const artifacts = path.join(repoRoot, 'test-artifacts');

/** Debian's chromium, headless, with the flags this closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  await mkdir(artifacts, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/** A new page of `browser`, signed in to the console of the Hub at `url`, on the dashboard. */
export async function signedInPage(browser: Browser, url: string, user: { username: string; password: string }): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(url + '/');
  await page.fill('input[name=username]', user.username);
  await page.fill('input[name=password]', user.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('h1:has-text("Dashboard")');
  return page;
}
