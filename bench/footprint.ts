/**
 * Hub's footprint as a user meets it, through `pnpm start` itself: time to
 * /health on a second start, RSS idle with no servers and with 100 stdio
 * servers (their processes not counted), how soon the cached tools/list
 * reaches an agent after a restart, and whether 200 MCP sessions leave
 * memory behind once closed. Each start figure is the median of 5 starts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.dirname(here);
const STARTS = Number(process.env.FOOTPRINT_STARTS ?? 5);
const SESSIONS = Number(process.env.FOOTPRINT_SESSIONS ?? 200);
const SESSION_SECONDS = Number(process.env.FOOTPRINT_SESSION_SECONDS ?? 60);
const PASSWORD = 'footprint-pass-1';
/** How long after closing sessions memory is read: V8's memory reducer runs 2 s into idleness (see package.json). */
const SETTLE_MS = 20_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[], digits = 0) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** RSS of one process in MB, from /proc. */
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The pids below `pid`, depth first. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let children = '';
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const c of children.trim().split(/\s+/).filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

type Running = { child: ChildProcess; hubPid: number; url: string; healthMs: number; stop: () => Promise<void> };

/** `pnpm start` as a user types it; resolves once /health answers, with the time it took. */
async function pnpmStart(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const started = performance.now();
  const child = spawn('pnpm', ['start'], {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', MCPHUB_SETTING_PATH: path.join(dataDir, 'mcp_settings.json'), AUTH_PASSWORD: PASSWORD, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let url: string | undefined;
  for (;;) {
    url ??= /Hub listening on (\S+) /.exec(out)?.[1];
    if (url) {
      const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
      if (ok) break;
    }
    if (child.exitCode !== null) throw new Error(`pnpm start exited: ${out}`);
    if (performance.now() - started > 60_000) throw new Error(`no /health in 60 s: ${out}`);
    await sleep(5);
  }
  const healthMs = performance.now() - started;
  // The node process itself, not the shell pnpm runs the script in.
  const hubPid = descendants(child.pid!).find((p) => {
    const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
    return /(^|\/)node$/.test(argv[0]!) && argv.some((a) => a.endsWith('server/start.mjs'));
  })!;
  const stop = async () => {
    process.kill(hubPid, 'SIGTERM');
    for (let i = 0; i < 200 && child.exitCode === null; i++) await sleep(50);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  return { child, hubPid, url: url!, healthMs, stop };
}

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: PASSWORD }) });
  return ((await res.json()) as { token: string }).token;
}

/**
 * An agent with its own connections, as a separate agent process would have:
 * `end()` ends its session and closes them (the shared fetch pool of this
 * process would keep hundreds of idle sockets open on Hub).
 */
async function agent(url: string, token: string) {
  const dispatcher = new Agent();
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: ((input: string | URL, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch,
  });
  const client = new Client({ name: 'footprint', version: '1' });
  await client.connect(transport);
  return {
    client,
    async end() {
      // Bounded: a stuck close must not hang the whole bench.
      const bounded = (p: Promise<unknown>) => Promise.race([p.catch(() => undefined), sleep(5000)]);
      await bounded(transport.terminateSession());
      await bounded(client.close());
      await bounded(dispatcher.close());
    },
  };
}

async function allConnected(url: string, token: string, count: number, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const res = (await (await fetch(`${url}/api/servers`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: Array<{ status: string }> };
    if (res.data.filter((s) => s.status === 'connected').length >= count) return;
    await sleep(200);
  }
  throw new Error('servers did not connect');
}

function tinyServers(dataDir: string, count: number): void {
  const mcpServers = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`tiny${String(i).padStart(3, '0')}`, { type: 'stdio', command: process.execPath, args: [path.join(here, 'tiny-server.mjs'), String(i)] }]),
  );
  writeFileSync(path.join(dataDir, 'mcp_settings.json'), JSON.stringify({ mcpServers }));
}

export async function footprint(): Promise<string[]> {
  // `pnpm start` builds what changed; build first so every measured start is a second start.
  spawnSync('node', ['server/start.mjs', '--build-only'], { cwd: root, stdio: 'inherit' });
  // Printed as soon as measured: the whole run takes minutes.
  const lines = { push: (line: string) => console.log(line) };

  // 1. Second starts with no server: time to /health, RSS after 5 s idle.
  const empty = mkdtempSync(path.join(tmpdir(), 'hub-footprint-'));
  await (await pnpmStart(empty)).stop(); // the first start creates the admin
  const health: number[] = [];
  const idle: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const hub = await pnpmStart(empty);
    health.push(hub.healthMs);
    await sleep(5000);
    idle.push(rssMb(hub.hubPid));
    await hub.stop();
  }
  lines.push(`second pnpm start to /health: ${median(health).toFixed(0)} ms median of ${STARTS} (${range(health)}; target 1000)`);
  lines.push(`RSS after 5 s idle, no servers: ${median(idle).toFixed(1)} MB (${range(idle, 1)}; target 90)`);

  // 2. A hundred stdio servers: the cached tools/list after a restart, and RSS with all connected.
  const hundred = mkdtempSync(path.join(tmpdir(), 'hub-footprint-100-'));
  tinyServers(hundred, 100);
  const first = await pnpmStart(hundred);
  await allConnected(first.url, await login(first.url), 100);
  await first.stop(); // the tool cache is written on the way out
  const listed: number[] = [];
  const loaded: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const hub = await pnpmStart(hundred);
    const t0 = performance.now();
    const token = await login(hub.url);
    const { client, end } = await agent(hub.url, token);
    let tools = 0;
    while (tools < 300) {
      tools = (await client.listTools()).tools.length;
      if (tools < 300) await sleep(10);
    }
    listed.push(performance.now() - t0);
    await end();
    await allConnected(hub.url, token, 100);
    await sleep(5000);
    loaded.push(rssMb(hub.hubPid));
    await hub.stop();
  }
  lines.push(`100 stdio servers, restart: all 300 cached tools listed to an agent ${median(listed).toFixed(0)} ms after /health (${range(listed)}; target 1000; includes login and initialize)`);
  lines.push(`RSS with 100 stdio servers connected, 5 s idle: ${median(loaded).toFixed(1)} MB (${range(loaded, 1)}; target 150; children not counted)`);

  // 3. Leak: SESSIONS sessions calling a tool for SESSION_SECONDS, then closed. A short
  // warm-up round first takes the one-time growth (code compiled on first use, caches
  // filling) out of the baseline; the cold figure is reported too.
  const leak = mkdtempSync(path.join(tmpdir(), 'hub-footprint-leak-'));
  tinyServers(leak, 1);
  const hub = await pnpmStart(leak);
  const token = await login(hub.url);
  await allConnected(hub.url, token, 1);
  await sleep(10_000);
  const cold = rssMb(hub.hubPid);
  const round = async (seconds: number) => {
    const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => agent(hub.url, token)));
    let calls = 0;
    let peak = 0;
    const until = Date.now() + seconds * 1000;
    await Promise.all(
      sessions.map(async ({ client }, i) => {
        await sleep((i * 1000) / SESSIONS);
        while (Date.now() < until) {
          await client.callTool({ name: 'tiny000-alpha', arguments: { message: `m${calls++}` } });
          peak = Math.max(peak, rssMb(hub.hubPid));
          await sleep(1000);
        }
      }),
    );
    await Promise.all(sessions.map((s) => s.end()));
    await sleep(SETTLE_MS);
    return { calls, peak, after: rssMb(hub.hubPid) };
  };
  const warm = (await round(10)).after;
  const { calls, peak, after } = await round(SESSION_SECONDS);
  const open = Number(/hub_mcp_sessions (\d+)/.exec(await (await fetch(`${hub.url}/api/monitoring/scrape`, { headers: { authorization: `Bearer ${token}` } })).text())?.[1] ?? -1);
  await hub.stop();
  const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`;
  lines.push(
    `${SESSIONS} MCP sessions for ${SESSION_SECONDS} s (${calls} calls), then closed: RSS ${warm.toFixed(1)} MB after a warm-up round → peak ${peak.toFixed(1)} → ${after.toFixed(1)} MB ${SETTLE_MS / 1000} s after closing (${pct(after, warm)}; target within 10%); cold start ${cold.toFixed(1)} MB (${pct(after, cold)}); sessions left open: ${open}`,
  );
  for (const d of [empty, hundred, leak]) rmSync(d, { recursive: true, force: true });
  return [];
}
