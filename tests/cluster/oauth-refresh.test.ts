import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import { ADMIN } from '../helpers/hub';
import { fixture, waitFor } from '../helpers/mcp';
import { kill, startProcess } from '../helpers/spawn';
import { repoRoot, stop } from '../helpers/process';
import { dropSchema, freshSchema, PG_URL, sql } from '../helpers/pg';
import { startReplica, type Replica } from '../helpers/cluster';

const run = promisify(execFile);
const schema = freshSchema();
let upstream: ChildProcess;
let base = '';
let replicas: Replica[] = [];

test.before(async () => {
  const p = await startProcess(process.execPath, [fixture('oauth-server.mjs')], { OAUTH_EXPIRES_IN: '3600' }, /PORT=\d+/);
  upstream = p.child;
  base = `http://127.0.0.1:${/PORT=(\d+)/.exec(p.output())![1]}`;
});

test.after(async () => {
  await Promise.all(replicas.map((r) => stop(r.child)));
  await kill(upstream);
  await dropSchema(schema);
});

test('three replicas refresh an expiring upstream OAuth token once, on the leader, and all use the new one', async () => {
  // An operator's existing settings, moved in with the CLI: tokens that expire in a minute.
  const dir = await mkdtemp(path.join(tmpdir(), 'hub-oauth-'));
  const file = path.join(dir, 'mcp_settings.json');
  const oauth = { clientId: 'client-1', accessToken: 'valid-token', refreshToken: 'refresh-1', expiresAt: Date.now() + 60_000 };
  await writeFile(file, JSON.stringify({ mcpServers: { protected: { type: 'streamable-http', url: `${base}/mcp`, oauth } }, users: [], groups: [] }));
  await run(process.execPath, ['server/dist/cli.js', 'import-settings', file], { cwd: repoRoot, env: { ...process.env, DATABASE_URL: PG_URL, HUB_DB_SCHEMA: schema } });
  replicas = await Promise.all(['a', 'b', 'c'].map((id) => startReplica(id, schema)));
  const stats = async () => (await (await fetch(`${base}/stats`)).json()) as { refreshes: number; attempts: number };
  await waitFor(async () => (await stats()).refreshes >= 1, 20_000, 'a refresh');
  // The refresh is counted when the provider answers; storing the new token follows (after other replicas' writes, if they race).
  const stored = await waitFor(async () => {
    const [row] = await sql<{ doc: any; secrets: any }>(`SELECT doc, secrets FROM "${schema}".settings`);
    return JSON.stringify(row!.secrets).includes('valid-token-1');
  }, 5000, 'the new token stored');
  assert.ok(stored, 'the new token is stored');
  // Every replica calls through with the stored token; none refreshes on its own.
  const login = await fetch(`${replicas[2]!.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  const token = ((await login.json()) as { token: string }).token;
  for (const r of replicas) {
    await waitFor(async () => {
      const res = await fetch(`${r.url}/api/tools/call/protected`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ toolName: 'whoami' }) });
      return res.ok && JSON.stringify(await res.json()).includes('authorized caller');
    }, 10_000, `a call through ${r.id}`);
  }
  await new Promise((r) => setTimeout(r, 2000));
  // Attempts, not successes: with a rotating refresh token, a second replica's try would fail and not count as a refresh.
  assert.equal(await stats(), { refreshes: 1, attempts: 1 }, 'refreshed exactly once, by one replica');
});

test.run();
