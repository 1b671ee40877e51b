import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { zip } from '../helpers/zip';
import { startHub, type TestHub } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';

let hub: TestHub;
let token: string;
const crashySource = fixture('crashy.mjs');

const manifest = (name: string, extra: object = {}) =>
  JSON.stringify({
    manifest_version: '0.2',
    name,
    version: '1.0.0',
    description: 'A bundled server',
    server: { type: 'node', entry_point: 'server/index.mjs', mcp_config: { command: process.execPath, args: ['${__dirname}/server/index.mjs'], env: { GREETING: '${user_config.greeting}' } } },
    user_config: { greeting: { type: 'string', default: 'hi' } },
    ...extra,
  });

async function upload(data: Buffer, field = 'mcpbFile', t: string | null = token) {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(data)]), 'bundle.mcpb');
  const res = await fetch(hub.url + '/api/mcpb/upload', { method: 'POST', body: form, headers: t ? { authorization: `Bearer ${t}` } : {} });
  return { status: res.status, body: await res.json() };
}

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
});
test.after(() => hub.close());

test('a bundle is unpacked under the data folder and its server created and started', async () => {
  const { readFile } = await import('node:fs/promises');
  // The crashy fixture imports the SDK; bundle it beside a link to this repo's node_modules by running it in place.
  const source = (await readFile(crashySource, 'utf8')).replace(/from '@modelcontextprotocol\/sdk\/([^']+)'/g, (_m, p) => `from '${path.join(path.dirname(crashySource), '../node_modules/@modelcontextprotocol/sdk/dist/esm', p)}'`).replace("from 'zod'", `from '${path.join(path.dirname(crashySource), '../node_modules/zod/index.js')}'`);
  const res = await upload(await zip({ 'manifest.json': manifest('bundled'), 'server/index.mjs': source }));
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.data.name, 'bundled');
  const dir = path.join(hub.dir, 'bundles', 'bundled');
  assert.ok(existsSync(path.join(dir, 'server/index.mjs')));
  assert.equal(res.body.data.config.args, [path.join(dir, 'server/index.mjs')]);
  assert.is(res.body.data.config.env.GREETING, 'hi');
  await waitFor(async () => (await hub.request('GET', '/api/servers/bundled', { token })).body.data.status === 'connected', 10_000, 'bundle connected');
  const call = await hub.request('POST', '/api/tools/call/bundled', { token, body: { toolName: 'env', arguments: { name: 'GREETING' } } });
  assert.is(call.body.data.content[0].text, 'hi');
});

test('the same bundle twice is a conflict', async () => {
  const res = await upload(await zip({ 'manifest.json': manifest('bundled'), 'server/index.mjs': 'x' }));
  assert.is(res.status, 409);
});

test('path traversal, a missing or bad manifest, and a non-zip are refused with clear errors and leave nothing behind', async () => {
  // yazl refuses to write '../' names, so write a same-length name and patch the bytes.
  const crafted = await zip({ 'manifest.json': manifest('evil'), 'XX/XX/escape.txt': 'x' });
  const patched = Buffer.from(crafted.toString('latin1').replaceAll('XX/XX/escape.txt', '../../escape.txt'), 'latin1');
  const traversal = await upload(patched);
  assert.is(traversal.status, 400);
  assert.match(traversal.body.error, /mcpbFile/);
  const missing = await upload(await zip({ 'readme.txt': 'no manifest' }));
  assert.is(missing.status, 400);
  assert.match(missing.body.error, /manifest\.json/);
  const badManifest = await upload(await zip({ 'manifest.json': JSON.stringify({ name: 'x y', version: '1' }) }));
  assert.is(badManifest.status, 400);
  assert.match(badManifest.body.error, /manifest\.json (name|server)/);
  const notZip = await upload(Buffer.from('definitely not a zip file'));
  assert.is(notZip.status, 400);
  assert.match(notZip.body.error, /zip/);
  const leftovers = readdirSync(path.join(hub.dir, 'bundles')).filter((n) => n !== 'bundled');
  assert.equal(leftovers, []);
  assert.not.ok(existsSync(path.join(hub.dir, 'escape.txt')));
});

test('the field must be mcpbFile, and a token is required', async () => {
  const z = await zip({ 'manifest.json': manifest('other') });
  const wrongField = await upload(z, 'file');
  assert.is(wrongField.status, 400);
  assert.match(wrongField.body.error, /mcpbFile/);
  const anon = await upload(z, 'mcpbFile', null);
  assert.is(anon.status, 401);
  const json = await hub.request('POST', '/api/mcpb/upload', { token, body: { a: 1 } });
  assert.is(json.status, 400);
});

test.run();
