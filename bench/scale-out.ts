/**
 * Scale-out: calls/s through HAProxy with one and with three Hub replicas on
 * PostgreSQL, against an upstream-bound workload (a stdio tool taking 20 ms
 * per call, at most 4 at once per process: each replica runs its own child),
 * and the CPU each replica spends per call next to a single lowdb Hub under
 * the same per-process load. Rounds are interleaved and medians reported.
 * `SCALE_PROF=1` writes a CPU profile of each Hub to /tmp/prof.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHaproxy } from '../tests/helpers/cluster';
import { dropSchema, freshSchema, PG_URL } from '../tests/helpers/pg';
import { cpuMs, hubCommand, start, stop } from './procs';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.dirname(here);
const AGENTS = Number(process.env.SCALE_AGENTS ?? 16);
const PER_AGENT = Number(process.env.SCALE_PER_AGENT ?? 4);
const SECONDS = Number(process.env.SCALE_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PASSWORD = 'scale-pass-1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], d: number) => `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`;

type Hub = { id: string; pid: number; port: number; url: string; done: () => Promise<void> };

async function startHub(id: string, env: Record<string, string>): Promise<Hub> {
  const dir = mkdtempSync(path.join(tmpdir(), `hub-scale-${id}-`));
  const cmd = hubCommand(root);
  const p = await start(process.execPath, [...(process.env.SCALE_PROF ? ["--cpu-prof", "--cpu-prof-dir=/tmp/prof", `--cpu-prof-name=${id}.cpuprofile`] : []), ...cmd.args], {
    ...cmd.env,
    PORT: '0',
    LOG_LEVEL: 'warn',
    HUB_REPLICA_ID: id,
    MCPHUB_SETTING_PATH: path.join(dir, 'mcp_settings.json'),
    AUTH_PASSWORD: PASSWORD,
    ...env,
  }, /Hub listening on (\S+) /);
  const url = /Hub listening on (\S+) /.exec(p.output())![1]!;
  return { id, pid: p.child.pid!, port: Number(new URL(url).port), url, done: async () => (await stop(p.child), rmSync(dir, { recursive: true, force: true })) };
}

async function token(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  return ((await res.json()) as { token: string }).token;
}

async function addSlowServer(url: string, auth: string, hubs: Hub[]) {
  await fetch(`${url}/api/servers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'slow', config: { command: process.execPath, args: [path.join(here, 'slow-server.mjs')] } }),
  });
  for (const h of hubs) {
    for (let i = 0; ; i++) {
      const s = (await (await fetch(`${h.url}/api/servers/slow`, { headers: { authorization: `Bearer ${auth}` } })).json()) as { data?: { status?: string } };
      if (s.data?.status === 'connected') break;
      if (i > 150) throw new Error(`slow not connected on ${h.id}`);
      await sleep(100);
    }
  }
}

/** AGENTS sessions, PER_AGENT calls in flight each, for SECONDS: calls/s and CPU ms per call over `pids`. */
async function load(url: string, auth: string, pids: number[]): Promise<{ rps: number; cpu: number }> {
  const clients = await Promise.all(
    Array.from({ length: AGENTS }, async () => {
      const c = new Client({ name: 'scale', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${auth}` } } }));
      return c;
    }),
  );
  const run = async (until: number) => {
    let n = 0;
    await Promise.all(
      clients.flatMap((c) =>
        Array.from({ length: PER_AGENT }, async () => {
          while (performance.now() < until) {
            await c.callTool({ name: 'slow-work', arguments: { n } });
            n++;
          }
        }),
      ),
    );
    return n;
  };
  await run(performance.now() + 2000); // every replica has met every session, JIT warm
  const cpu0 = pids.reduce((s, p) => s + cpuMs(p), 0);
  const t0 = performance.now();
  const calls = await run(t0 + SECONDS * 1000);
  const ms = performance.now() - t0;
  const cpu = pids.reduce((s, p) => s + cpuMs(p), 0) - cpu0;
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  return { rps: (calls / ms) * 1000, cpu: cpu / calls };
}

export async function scaleOut(): Promise<string[]> {
  const schema = freshSchema();
  const pgEnv = { DATABASE_URL: PG_URL, HUB_DB_SCHEMA: schema };
  const replicas = await Promise.all(['a', 'b', 'c'].map((id) => startHub(id, pgEnv)));
  const single = await startHub('lowdb', {});
  const one = await startHaproxy(replicas.slice(0, 1));
  const three = await startHaproxy(replicas);
  const lone = await startHaproxy([single]);
  const lines: string[] = [];
  try {
    const pgAuth = await token(one.url);
    const lowAuth = await token(lone.url);
    await addSlowServer(replicas[0]!.url, pgAuth, replicas);
    await addSlowServer(single.url, lowAuth, [single]);
    const r1: Array<{ rps: number; cpu: number }> = [];
    const r3: typeof r1 = [];
    const rl: typeof r1 = [];
    for (let r = 0; r < ROUNDS; r++) {
      r1.push(await load(one.url, pgAuth, [replicas[0]!.pid]));
      r3.push(await load(three.url, pgAuth, replicas.map((h) => h.pid)));
      rl.push(await load(lone.url, lowAuth, [single.pid]));
      console.error(`round ${r + 1}: 1 replica ${r1[r]!.rps.toFixed(0)}/s, 3 replicas ${r3[r]!.rps.toFixed(0)}/s, lowdb ${rl[r]!.rps.toFixed(0)}/s`);
    }
    const rps1 = median(r1.map((x) => x.rps));
    const rps3 = median(r3.map((x) => x.rps));
    const cpu3 = median(r3.map((x) => x.cpu));
    const cpu1 = median(r1.map((x) => x.cpu));
    const cpuL = median(rl.map((x) => x.cpu));
    lines.push(
      `workload: ${AGENTS} agents x ${PER_AGENT} calls in flight, upstream 20 ms per call, 4 at once per process; ${SECONDS} s per run, median of ${ROUNDS} rounds`,
      `1 replica behind HAProxy:   ${rps1.toFixed(0)} calls/s (${spread(r1.map((x) => x.rps), 0)})`,
      `3 replicas behind HAProxy:  ${rps3.toFixed(0)} calls/s (${spread(r3.map((x) => x.rps), 0)}) -> ${(rps3 / rps1).toFixed(2)}x (target >= 2.5x)`,
      `lowdb Hub behind HAProxy:   ${median(rl.map((x) => x.rps)).toFixed(0)} calls/s (${spread(rl.map((x) => x.rps), 0)})`,
      `CPU per call per replica:   ${cpu3.toFixed(3)} ms with 3 replicas (${spread(r3.map((x) => x.cpu), 3)}), ${cpu1.toFixed(3)} ms with 1 (${spread(r1.map((x) => x.cpu), 3)})`,
      `  single lowdb Hub:         ${cpuL.toFixed(3)} ms (${spread(rl.map((x) => x.cpu), 3)}) -> replicas ${(((cpu3 - cpuL) / cpuL) * 100).toFixed(1)}% (target within 10%)`,
    );
  } finally {
    await Promise.all([one.stop(), three.stop(), lone.stop()]);
    await Promise.all([...replicas, single].map((h) => h.done()));
    await dropSchema(schema).catch(() => {});
  }
  return lines;
}
