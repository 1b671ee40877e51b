import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startHub, type TestHub } from '../helpers/hub';
import { repoRoot } from '../helpers/process';

let hub: TestHub;
test.before(async () => {
  assert.ok(existsSync(path.join(repoRoot, 'client/dist/index.html')), 'console is built (pnpm test builds it)');
  hub = await startHub();
});
test.after(() => hub.close());

test('the console page is served at /', async () => {
  const res = await fetch(hub.url + '/');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  const html = await res.text();
  assert.match(html, /<div id="root">/);
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(script, 'a script asset is referenced');
  const asset = await fetch(hub.url + script);
  assert.is(asset.status, 200);
  assert.match(asset.headers.get('content-type') ?? '', /javascript/);
});

test('client-side routes load the console; API paths stay 404', async () => {
  const page = await fetch(hub.url + '/servers', { headers: { accept: 'text/html' } });
  assert.is(page.status, 200);
  assert.match(await page.text(), /<div id="root">/);
  const api = await fetch(hub.url + '/api/nothing', { headers: { accept: 'text/html' } });
  assert.is(api.status, 404);
});

test('the console has a favicon', async () => {
  const html = await (await fetch(hub.url + '/')).text();
  const href = /<link rel="icon"[^>]*href="([^"]+)"/.exec(html)?.[1];
  assert.ok(href, 'a link rel=icon');
  const icon = await fetch(hub.url + href);
  assert.is(icon.status, 200);
  assert.match(icon.headers.get('content-type') ?? '', /image\/svg\+xml/);
});

test.run();
