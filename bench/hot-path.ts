/**
 * The tool-call hot path, side by side: p50/p99 latency and calls/s at
 * concurrency 1 and 32, and Hub's CPU per forwarded call; a bare node:http
 * forwarder (f) shows what any Node hub pays per call on the same machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { cpuMs, hubCommand, start, stop } from './procs';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.dirname(here);
const everything = path.join(here, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const SEQ = Number(process.env.BENCH_CALLS ?? 1000);
const CONC = 32;
const CONC_CALLS = Number(process.env.BENCH_CONC_CALLS ?? 3000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);

type Result = { name: string; p50: number; p99: number; rps1: number; p50c: number; p99c: number; rps32: number; cpu1?: number; cpu32?: number };

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function measure(name: string, make: () => Transport, tool: string, pid?: number): Promise<Result> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(make());
  const call = (i: number) => client.callTool({ name: tool, arguments: { message: `m${i}` } });
  // Warm up to steady state: JIT tiers and heap sizing take a couple of thousand calls.
  for (let i = 0; i < WARMUP; i++) await call(i);
  // Concurrency 1
  const lat: number[] = [];
  let cpu0 = pid ? cpuMs(pid) : 0;
  let t0 = performance.now();
  for (let i = 0; i < SEQ; i++) {
    const s = performance.now();
    await call(i);
    lat.push(performance.now() - s);
  }
  const seqMs = performance.now() - t0;
  const cpu1 = pid ? (cpuMs(pid) - cpu0) / SEQ : undefined;
  // Concurrency 32
  const latc: number[] = [];
  let next = 0;
  cpu0 = pid ? cpuMs(pid) : 0;
  t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONC }, async () => {
      while (next < CONC_CALLS) {
        const i = next++;
        const s = performance.now();
        await call(i);
        latc.push(performance.now() - s);
      }
    }),
  );
  const concMs = performance.now() - t0;
  const cpu32 = pid ? (cpuMs(pid) - cpu0) / CONC_CALLS : undefined;
  await client.close();
  return {
    name,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    rps1: (SEQ / seqMs) * 1000,
    p50c: pct(latc, 50),
    p99c: pct(latc, 99),
    rps32: (CONC_CALLS / concMs) * 1000,
    cpu1,
    cpu32,
  };
}

async function hub() {
  const dir = mkdtempSync(path.join(tmpdir(), 'hub-bench-'));
  const hubCmd = hubCommand(root);
  const p = await start(process.execPath, hubCmd.args, {
    ...hubCmd.env,
    PORT: '0',
    LOG_LEVEL: 'warn',
    MCPHUB_SETTING_PATH: path.join(dir, 'mcp_settings.json'),
    AUTH_PASSWORD: 'bench-pass-1',
  }, /Hub listening on (\S+) /);
  const url = /Hub listening on (\S+) /.exec(p.output())![1]!;
  const login = await (await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'bench-pass-1' }) })).json();
  const token = login.token as string;
  const auth = { authorization: `Bearer ${token}` };
  await fetch(`${url}/api/servers`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'everything', config: { command: process.execPath, args: [everything, 'stdio'] } }),
  });
  for (let i = 0; i < 100; i++) {
    const s = await (await fetch(`${url}/api/servers/everything`, { headers: auth })).json();
    if (s.data?.status === 'connected') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, auth, child: p.child, done: () => (stop(p.child), rmSync(dir, { recursive: true, force: true })) };
}

async function waitForPort(port: number) {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

type Target = { name: string; make: () => Transport; tool: string; pid?: number };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Every target is started first, then measured in interleaved rounds and the
 * median of each figure reported: this VM's speed drifts by 2x over minutes,
 * and interleaving spreads that drift over all targets alike.
 */
export async function hotPath(rounds = Number(process.env.BENCH_ROUNDS ?? 3)): Promise<Result[]> {
  const nul = await start(process.execPath, [path.join(here, 'null-server.mjs')], {}, /PORT=\d+/);
  const nullUrl = `http://127.0.0.1:${/PORT=(\d+)/.exec(nul.output())![1]}/mcp`;
  const h = await hub();
  const headers = h.auth;
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proxy = await start(process.execPath, [path.join(here, 'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs'), '--port', String(port), '--host', '127.0.0.1', '--', process.execPath, everything, 'stdio'], {}, /starting server on port/i);
  await waitForPort(port);
  const fwd = await start(process.execPath, [path.join(here, 'forwarder.mjs'), process.execPath, everything, 'stdio'], {}, /PORT=\d+/);
  const fwdUrl = `http://127.0.0.1:${/PORT=(\d+)/.exec(fwd.output())![1]}/mcp`;
  const targets: Target[] = [
    { name: '(a) direct stdio', make: () => new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }), tool: 'echo' },
    { name: '(b) null MCP server (HTTP floor)', make: () => new StreamableHTTPClientTransport(new URL(nullUrl)), tool: 'echo', pid: nul.child.pid },
    { name: '(c) Hub /api/mcp', make: () => new StreamableHTTPClientTransport(new URL(`${h.url}/api/mcp`), { requestInit: { headers } }), tool: 'everything-echo', pid: h.child.pid },
    {
      name: '(d) Hub legacy SSE /sse',
      make: () =>
        new SSEClientTransport(new URL(`${h.url}/sse`), {
          requestInit: { headers },
          eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
        }),
      tool: 'everything-echo',
      pid: h.child.pid,
    },
    { name: '(e) mcp-proxy', make: () => new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)), tool: 'echo', pid: proxy.child.pid },
    { name: '(f) bare node:http forwarder', make: () => new StreamableHTTPClientTransport(new URL(fwdUrl)), tool: 'echo', pid: fwd.child.pid },
  ];
  const only = process.env.BENCH_ONLY?.split(',');
  if (only) targets.splice(0, targets.length, ...targets.filter((t) => only.some((o) => t.name.startsWith(`(${o})`))));
  const all: Result[][] = targets.map(() => []);
  try {
    for (let r = 0; r < rounds; r++) {
      for (const [i, t] of targets.entries()) all[i]!.push(await measure(t.name, t.make, t.tool, t.pid));
    }
  } finally {
    await stop(nul.child);
    await stop(proxy.child);
    await stop(fwd.child);
    h.done();
  }
  return all.map((rs) => {
    const m = (k: keyof Result) => (rs[0]![k] === undefined ? undefined : median(rs.map((x) => x[k] as number)));
    return { name: rs[0]!.name, p50: m('p50')!, p99: m('p99')!, rps1: m('rps1')!, p50c: m('p50c')!, p99c: m('p99c')!, rps32: m('rps32')!, cpu1: m('cpu1'), cpu32: m('cpu32') };
  });
}

export function report(results: Result[]): string[] {
  const f = (n: number | undefined, d = 3) => (n === undefined ? '-' : n.toFixed(d));
  const signed = (n: number) => (n >= 0 ? `+${f(n)}` : f(n));
  const lines = [
    'scenario                               | c=1 p50 ms | c=1 p99 ms | c=1 calls/s | c=32 p50 ms | c=32 p99 ms | c=32 calls/s | CPU ms/call c=1 | c=32',
    ...results.map((r) => `${r.name.padEnd(38)} | ${f(r.p50).padStart(10)} | ${f(r.p99).padStart(10)} | ${f(r.rps1, 0).padStart(11)} | ${f(r.p50c).padStart(11)} | ${f(r.p99c).padStart(11)} | ${f(r.rps32, 0).padStart(12)} | ${f(r.cpu1).padStart(15)} | ${f(r.cpu32)}`),
  ];
  // The comparisons need every target; BENCH_ONLY runs print the table alone.
  if (results.length < 6) return lines;
  const [a, b, c, d, e, fw] = results as [Result, Result, Result, Result, Result, Result];
  const floor = a.p50 + b.p50;
  lines.push(
    '',
    `Hub p50 at c=1 vs (a)+(b): ${f(c.p50)} vs ${f(floor)} ms -> ${signed(c.p50 - floor)} ms (target <= +0.200)`,
    `Hub legacy SSE p50 at c=1 vs (a)+(b): ${signed(d.p50 - floor)} ms`,
    `Hub calls/s at c=32 vs (b): ${f((c.rps32 / b.rps32) * 100, 1)}% (target >= 80%)`,
    `Hub CPU per forwarded call: ${f(c.cpu1)} ms at c=1, ${f(c.cpu32)} ms at c=32 (target < 0.25)`,
    `  for scale, on this machine in this run: the null SDK server spends ${f(b.cpu1)} / ${f(b.cpu32)} ms per call answering by itself,`,
    `  and a bare node:http forwarder (f) ${f(fw.cpu1)} / ${f(fw.cpu32)} ms per forwarded call: Hub is ${signed(c.cpu1! - fw.cpu1!)} / ${signed(c.cpu32! - fw.cpu32!)} ms from it`,
    `mcp-proxy p50 at c=1: ${signed(e.p50 - floor)} ms over (a)+(b); calls/s at c=32 ${f((e.rps32 / b.rps32) * 100, 1)}% of (b); CPU ${f(e.cpu1)} ms/call`,
  );
  return lines;
}
