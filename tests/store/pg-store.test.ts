import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openDatabase, type Database } from '../../server/src/store/pg-schema';
import { PgStore } from '../../server/src/store/pg-store';
import { PgListener } from '../../server/src/events/pg-listener';
import { PG_URL, dropSchema, freshSchema, sql } from '../helpers/pg';
import { repoRoot } from '../helpers/process';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function replica(schema: string, name: string) {
  const db = await openDatabase(PG_URL, schema, 4);
  const listener = new PgListener(db);
  await listener.start();
  const store = await PgStore.open(db, { listener, replica: name });
  return {
    db,
    listener,
    store,
    async close() {
      await store.close();
      await listener.close();
      await db.pool.end();
    },
  };
}

async function until(check: () => boolean, ms = 3000): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('timed out');
    await sleep(5);
  }
  return Date.now() - started;
}

test('three replicas migrating at once create the schema once and agree on its version', async () => {
  const schema = freshSchema();
  const dbs: Database[] = await Promise.all([1, 2, 3].map(() => openDatabase(PG_URL, schema, 2)));
  const rows = await sql<{ value: string }>(`SELECT value FROM "${schema}".meta WHERE key = 'schema_version'`);
  assert.is(rows.length, 1);
  assert.ok(Number(rows[0]!.value) >= 1);
  await Promise.all(dbs.map((d) => d.pool.end()));
  await dropSchema(schema);
});

test('writes from two replicas at once are all kept: the loser re-applies its change on the winner', async () => {
  const schema = freshSchema();
  const [a, b] = await Promise.all([replica(schema, 'a'), replica(schema, 'b')]);
  const writes = Array.from({ length: 200 }, (_, i) =>
    (i % 2 ? a : b).store.update((s) => {
      s.mcpServers[`s${i}`] = { command: 'node', args: [String(i)] };
      // A read-modify-write of one shared value: a lost update would show as a missing count.
      s.systemConfig.install = { ...s.systemConfig.install, baseUrl: `http://h/${(Number(s.systemConfig.install?.baseUrl?.split('/').pop() ?? 0) || 0) + 1}` };
    }),
  );
  await Promise.all(writes);
  const row = (await sql<{ doc: any; version: string }>(`SELECT doc, version FROM "${schema}".settings`))[0]!;
  assert.is(Object.keys(row.doc.mcpServers).length, 200);
  assert.is(row.doc.systemConfig.install.baseUrl, 'http://h/200');
  await until(() => Object.keys(a.store.get().mcpServers).length === 200 && Object.keys(b.store.get().mcpServers).length === 200);
  await a.close();
  await b.close();
  await dropSchema(schema);
});

test('a change on one replica reaches another within 250 ms, and again after its listening connection is killed', async () => {
  const schema = freshSchema();
  const [a, b] = await Promise.all([replica(schema, 'a'), replica(schema, 'b')]);
  const seen = await (async () => {
    const write = a.store.update((s) => void (s.mcpServers.one = { command: 'node' }));
    await write;
    return until(() => Boolean(b.store.get().mcpServers.one));
  })();
  assert.ok(seen < 250, `took ${seen} ms`);
  const pid = await b.listener.backendPid();
  await sql('SELECT pg_terminate_backend($1)', [pid]);
  await until(() => b.listener.connections === 2, 5000);
  await a.store.update((s) => void (s.mcpServers.two = { command: 'node' }));
  const again = await until(() => Boolean(b.store.get().mcpServers.two));
  assert.ok(again < 250, `took ${again} ms after reconnecting`);
  await a.close();
  await b.close();
  await dropSchema(schema);
});

test('secrets are kept out of the readable document column and come back whole', async () => {
  const schema = freshSchema();
  const a = await replica(schema, 'a');
  await a.store.update((s) => {
    s.mcpServers.api = { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer upstream-secret' }, env: { TOKEN: 'env-secret' } } as never;
    s.users.push({ username: 'ann', password: '$argon2id$hash-secret', role: 'user', mfa: { enabled: true, secret: 'TOTPSECRET' } } as never);
    s.userSecrets = { 'user:ann': { GITHUB_TOKEN: { value: 'ann-own-secret', updatedAt: '2026-11-24T00:00:00Z' } } };
  });
  const row = (await sql<{ doc: unknown; secrets: unknown }>(`SELECT doc, secrets FROM "${schema}".settings`))[0]!;
  const open = JSON.stringify(row.doc);
  for (const secret of ['upstream-secret', 'env-secret', 'hash-secret', 'TOTPSECRET', 'ann-own-secret']) {
    assert.not.ok(open.includes(secret), `${secret} in the document column`);
    assert.ok(JSON.stringify(row.secrets).includes(secret), `${secret} missing from the secrets column`);
  }
  const b = await replica(schema, 'b');
  assert.is((b.store.get().mcpServers.api as { headers: Record<string, string> }).headers.Authorization, 'Bearer upstream-secret');
  assert.is(b.store.get().users.find((u) => u.username === 'ann')!.mfa!.secret, 'TOTPSECRET');
  assert.is(b.store.get().userSecrets!['user:ann']!.GITHUB_TOKEN!.value, 'ann-own-secret');
  await a.close();
  await b.close();
  await dropSchema(schema);
});

test('pnpm hub import-settings loads an MCPHub settings file and export-settings writes it back', async () => {
  const schema = freshSchema();
  const dir = await mkdtemp(path.join(tmpdir(), 'hub-import-'));
  const file = path.join(dir, 'mcp_settings.json');
  await writeFile(file, JSON.stringify({ mcpServers: { fetch: { command: 'uvx', args: ['mcp-server-fetch'], env: { KEY: 'v' } } }, users: [], groups: [{ id: 'g1', name: 'team', servers: ['fetch'] }], systemConfig: { smartRouting: { enabled: false, openaiApiKey: 'sk-old' } } }));
  const env = { ...process.env, DATABASE_URL: PG_URL, HUB_DB_SCHEMA: schema };
  const imported = await run(process.execPath, ['server/dist/cli.js', 'import-settings', file], { cwd: repoRoot, env });
  assert.match(imported.stdout, /1 servers, 1 groups/);
  const out = path.join(dir, 'export.json');
  await run(process.execPath, ['server/dist/cli.js', 'export-settings', out], { cwd: repoRoot, env });
  const exported = JSON.parse(await readFile(out, 'utf8'));
  assert.equal(exported.mcpServers.fetch.args, ['mcp-server-fetch']);
  assert.is(exported.mcpServers.fetch.env.KEY, 'v');
  assert.is(exported.systemConfig.smartRouting.providerApiKey, 'sk-old');
  const bad = await run(process.execPath, ['server/dist/cli.js', 'import-settings', path.join(dir, 'missing.json')], { cwd: repoRoot, env }).catch((e) => e);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /Cannot read/);
  await dropSchema(schema);
});

test.run();
