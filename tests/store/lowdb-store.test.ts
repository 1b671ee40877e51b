import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LowdbStore } from '../../server/src/store/lowdb-store';
import { StoreLoadError } from '../../server/src/store/store';
import { tempDir } from '../helpers/hub';

async function fileAt(dir: string, content?: unknown): Promise<string> {
  const file = path.join(dir, 'mcp_settings.json');
  if (content !== undefined) await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

test('a missing file is created with the empty settings', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'nested', 'mcp_settings.json');
  const store = await LowdbStore.open(file);
  const saved = JSON.parse(await readFile(file, 'utf8'));
  assert.equal(saved, { mcpServers: {}, users: [], groups: [], systemConfig: {} });
  await store.close();
  await rm(dir, { recursive: true });
});

test('500 concurrent updates are all applied and all on disk when they resolve', async () => {
  const dir = await tempDir();
  const file = await fileAt(dir);
  const store = await LowdbStore.open(file);
  await Promise.all(
    Array.from({ length: 500 }, (_, i) =>
      store.update((s) => {
        s.mcpServers[`s${i}`] = { command: 'node', args: [String(i)] };
      }),
    ),
  );
  const saved = JSON.parse(await readFile(file, 'utf8'));
  assert.is(Object.keys(saved.mcpServers).length, 500);
  assert.equal(saved.mcpServers.s499.args, ['499']);
  await store.close();
  await rm(dir, { recursive: true });
});

test('a change that throws leaves the state untouched', async () => {
  const dir = await tempDir();
  const store = await LowdbStore.open(await fileAt(dir));
  const before = store.get();
  try {
    await store.update((s) => {
      s.mcpServers.half = { command: 'x' };
      throw new Error('boom');
    });
    assert.unreachable('should throw');
  } catch (err) {
    assert.is((err as Error).message, 'boom');
  }
  assert.is(store.get(), before);
  assert.not.ok('half' in store.get().mcpServers);
  await store.close();
  await rm(dir, { recursive: true });
});

test('a change that would make the state invalid is refused', async () => {
  const dir = await tempDir();
  const store = await LowdbStore.open(await fileAt(dir));
  try {
    await store.update((s) => {
      (s.mcpServers as Record<string, unknown>).bad = { args: 'not-an-array', command: 'x' };
    });
    assert.unreachable('should throw');
  } catch (err) {
    assert.match((err as Error).message, /mcpServers\.bad\.args/);
  }
  assert.not.ok('bad' in store.get().mcpServers);
  await store.close();
  await rm(dir, { recursive: true });
});

test('a failed disk write rolls back and rejects every change not yet durable', async () => {
  const dir = await tempDir();
  const sub = path.join(dir, 'sub');
  await mkdir(sub);
  const file = path.join(sub, 'mcp_settings.json');
  const store = await LowdbStore.open(file);
  await store.update((s) => void (s.systemConfig.nameSeparator = '-'));
  // Make the folder unwritable in a way that root cannot bypass: replace it by a file.
  await rm(sub, { recursive: true });
  await writeFile(sub, 'not a folder');
  const results = await Promise.allSettled([
    store.update((s) => void (s.systemConfig.nameSeparator = '_')),
    store.update((s) => void (s.systemConfig.nameSeparator = '.')),
  ]);
  assert.ok(results.every((r) => r.status === 'rejected'));
  assert.is(store.get().systemConfig.nameSeparator, '-');
  await store.close();
  await rm(dir, { recursive: true });
});

test('malformed JSON gives a clear error naming the file', async () => {
  const dir = await tempDir();
  const file = await fileAt(dir, '{"mcpServers": {');
  try {
    await LowdbStore.open(file);
    assert.unreachable('should throw');
  } catch (err) {
    assert.instance(err, StoreLoadError);
    assert.match((err as Error).message, /not valid JSON/);
    assert.match((err as Error).message, /mcp_settings\.json/);
  }
  await rm(dir, { recursive: true });
});

test('a field of the wrong type gives an error naming the field, and the file is left as it was', async () => {
  const dir = await tempDir();
  const original = JSON.stringify({ mcpServers: { fetch: { command: 'uvx', args: 'mcp-server-fetch' } } });
  const file = await fileAt(dir, original);
  try {
    await LowdbStore.open(file);
    assert.unreachable('should throw');
  } catch (err) {
    assert.match((err as Error).message, /mcpServers\.fetch\.args/);
  }
  assert.is(await readFile(file, 'utf8'), original);
  await rm(dir, { recursive: true });
});

test('an MCPHub file loads as it is: unknown keys are kept and legacy names renamed', async () => {
  const dir = await tempDir();
  const file = await fileAt(dir, {
    mcpServers: {
      fetch: { command: 'uvx', args: ['mcp-server-fetch'], enabled: true, perSessionClient: false },
      remote: { url: 'http://127.0.0.1:9/sse' },
    },
    users: [{ username: 'admin', password: '$2b$10$abcdefghijklmnopqrstuuJ3hW1w6m4m2p6rQfqj5bqYxH2Y2kqOu', isAdmin: true }],
    groups: [{ id: 'g1', name: 'dev', servers: ['fetch', { name: 'remote', tools: ['a'] }] }],
    systemConfig: { smartRouting: { openaiApiKey: 'sk-x' }, install: { npmRegistry: 'https://r.example' }, oauthServer: { enabled: false } },
    bearerKeys: [{ id: 'k', name: 'k', token: 't', enabled: true, accessType: 'all' }],
  });
  const store = await LowdbStore.open(file);
  const s = store.get();
  assert.is(s.mcpServers.fetch!.perSessionClient, false);
  assert.is(s.systemConfig.smartRouting!.providerApiKey, 'sk-x');
  assert.is(s.systemConfig.install!.jsPackageRegistry, 'https://r.example');
  assert.equal(s.systemConfig.oauthServer, { enabled: false });
  assert.equal((s as Record<string, unknown>).bearerKeys, [{ id: 'k', name: 'k', token: 't', enabled: true, accessType: 'all' }]);
  await store.update(() => undefined);
  const saved = JSON.parse(await readFile(file, 'utf8'));
  assert.ok(saved.bearerKeys && saved.systemConfig.oauthServer && saved.mcpServers.fetch.perSessionClient === false);
  await store.close();
  await rm(dir, { recursive: true });
});

test('change listeners hear every revision', async () => {
  const dir = await tempDir();
  const store = await LowdbStore.open(await fileAt(dir));
  const seen: number[] = [];
  const off = store.onChange((r) => seen.push(r));
  await store.update((s) => void (s.systemConfig.nameSeparator = '_'));
  await store.update((s) => void (s.systemConfig.nameSeparator = '-'));
  off();
  assert.is(seen.length, 2);
  assert.ok(seen[1]! > seen[0]!);
  await store.close();
  await rm(dir, { recursive: true });
});

test.run();
