/** A bundle can only ever write and replace its own folder, bundles/<name>; a malformed one is a 400. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startHub, type TestHub } from '../helpers/hub';
import { bundle, zip } from '../helpers/zip';

let hub: TestHub;
let token: string;

async function upload(data: Buffer) {
  const form = new FormData();
  form.append('mcpbFile', new Blob([new Uint8Array(data)]), 'bundle.mcpb');
  const res = await fetch(hub.url + '/api/mcpb/upload', { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

test.before(async () => {
  hub = await startHub();
  token = await hub.login();
  assert.is((await upload(await bundle('installed'))).status, 200);
});
test.after(() => hub.close());

test('a manifest named .. or . is refused and nothing outside bundles/<name> is touched', async () => {
  for (const name of ['..', '.', '...', '__proto__']) {
    const res = await upload(await bundle(name));
    assert.is(res.status, 400, name);
    assert.is(res.body.field, 'mcpbFile');
    assert.match(res.body.error, /^mcpbFile: manifest\.json name/);
  }
  assert.ok(existsSync(hub.settingsPath), 'the settings file is gone');
  assert.ok(existsSync(path.join(hub.dir, 'logs')), 'the logs are gone');
  assert.ok(existsSync(path.join(hub.dir, 'bundles', 'installed', 'x.mjs')), 'an installed bundle is gone');
  assert.equal(readdirSync(path.join(hub.dir, 'bundles')), ['installed'], 'a temporary folder was left behind');
});

test('a zip holding a file and a folder of the same name is a 400 naming mcpbFile, in either order', async () => {
  const clashes: Array<Record<string, string>> = [{ d: 'file', 'd/x.txt': 'inner' }, { 'd/x.txt': 'inner', d: 'file' }, { 'd/': '', d: 'file' }];
  for (const entries of clashes) {
    const manifest = { manifest_version: '0.2', name: 'clash', version: '1', server: { type: 'node', entry_point: 'x', mcp_config: { command: 'node' } } };
    const res = await upload(await zip({ 'manifest.json': JSON.stringify(manifest), ...entries }));
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.is(res.body.field, 'mcpbFile');
  }
  assert.equal(readdirSync(path.join(hub.dir, 'bundles')), ['installed']);
  assert.is((await hub.request('GET', '/health')).status, 200);
});

test.run();
