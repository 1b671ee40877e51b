/**
 * The catalogue of installable servers: the one shipped with Hub, searchable,
 * plus catalogues at configured URLs (a list, or MCPHub's market form);
 * a catalogue that cannot be read is reported, not fatal.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHub, type TestHub } from '../helpers/hub';

let hub: TestHub;
let token: string;
let remote: http.Server;
let base = '';

test.before(async () => {
  remote = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/list.json') return res.end(JSON.stringify([{ name: 'acme-tickets', description: 'Tickets of ACME', command: 'npx', args: ['-y', 'acme-mcp'], tags: ['tickets'] }, { bogus: true }]));
    if (req.url === '/market.json') return res.end(JSON.stringify({ servers: { 'acme-wiki': { description: 'The ACME wiki', command: 'uvx', args: ['acme-wiki-mcp'], env: { ACME_TOKEN: { description: 'token', required: true } } } } }));
    res.statusCode = 500;
    res.end('{}');
  });
  await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  hub = await startHub();
  token = await hub.login();
});
test.after(async () => {
  await hub.close();
  remote.close();
});

test('the shipped catalogue lists well-known servers, and a search narrows it', async () => {
  const all = (await hub.request('GET', '/api/catalog', { token })).body.data;
  assert.ok(all.items.length >= 10);
  assert.ok(all.items.every((i: { source: string }) => i.source === 'hub'));
  const git = (await hub.request('GET', '/api/catalog?query=git', { token })).body.data.items.map((i: { name: string }) => i.name);
  assert.ok(git.includes('git') && git.includes('github'), git.join());
  assert.not.ok(git.includes('memory'));
  const github = (await hub.request('GET', '/api/catalog?query=github', { token })).body.data.items[0];
  assert.equal(github.env.GITHUB_PERSONAL_ACCESS_TOKEN.required, true, 'variables to fill are named');
});

test('catalogues at configured URLs are merged, and one that fails is reported', async () => {
  const bad = await hub.request('PUT', '/api/system-config', { token, body: { catalog: { urls: ['file:///etc/passwd'] } } });
  assert.is(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /catalog\.urls\.0.*http/);
  const urls = [`${base}/list.json`, `${base}/market.json`, `${base}/broken.json`];
  assert.is((await hub.request('PUT', '/api/system-config', { token, body: { catalog: { urls } } })).status, 200);
  const res = (await hub.request('GET', '/api/catalog?query=acme', { token })).body.data;
  assert.equal(res.items.map((i: { name: string }) => i.name).sort(), ['acme-tickets', 'acme-wiki']);
  assert.is(res.items.find((i: { name: string }) => i.name === 'acme-wiki').source, `${base}/market.json`);
  assert.equal(res.errors.map((e: { url: string }) => e.url), [`${base}/broken.json`]);
});

test.run();
