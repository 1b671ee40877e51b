/**
 * Log fan-out: an upstream writes 1,000 lines a second; 100 tRPC WebSocket
 * subscribers and 20 SSE clients follow the log feed. Reports delivery lag
 * (line written -> event received) p50/p99 and Hub's CPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// @ts-ignore ws ships no types in this package; the tests hold @types/ws
import WebSocket from 'ws';
import { createTRPCClient, createWSClient, wsLink } from '@trpc/client';
import type { AppRouter } from '@hub/server';
import { cpuMs, start, stop, hubCommand } from './procs';

const here = path.dirname(new URL(import.meta.url).pathname);
const RATE = 1000;
const SECONDS = Number(process.env.FANOUT_SECONDS ?? 10);
const WS = 100;
const SSE = 20;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};

export async function logFanout(): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hub-fanout-'));
  const hubCmd = hubCommand(path.join(here, '..'));
  const hub = await start(process.execPath, hubCmd.args, {
    ...hubCmd.env,
    PORT: '0', LOG_LEVEL: 'warn', MCPHUB_SETTING_PATH: path.join(dir, 'mcp_settings.json'), AUTH_PASSWORD: 'bench-pass-1',
  }, /Hub listening on (\S+) /);
  const url = /Hub listening on (\S+) /.exec(hub.output())![1]!;
  const { token } = await (await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'bench-pass-1' }) })).json();
  const lags: number[] = [];
  let received = 0;
  const onLine = (message: string) => {
    const m = /^tick (\d+) (\d+)$/.exec(message);
    if (!m) return;
    received++;
    lags.push(Date.now() - Number(m[2]));
  };
  const wsClients = Array.from({ length: WS }, () => {
    const ws = createWSClient({ url: url.replace(/^http/, 'ws') + '/trpc', WebSocket: WebSocket as never, connectionParams: { token } });
    const client = createTRPCClient<AppRouter>({ links: [wsLink({ client: ws })] });
    const sub = client.logs.stream.subscribe({ server: 'chatty', limit: 1 }, { onData: (e) => { if (e.data.type === 'logs') for (const l of e.data.logs) onLine(l.message); } });
    return () => (sub.unsubscribe(), ws.close());
  });
  const sseAborts = Array.from({ length: SSE }, () => {
    const ctrl = new AbortController();
    void (async () => {
      const res = await fetch(`${url}/api/logs/stream?server=chatty&limit=1`, { headers: { authorization: `Bearer ${token}` }, signal: ctrl.signal });
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let buf = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const line = buf.slice(0, i).split('\n').find((l) => l.startsWith('data: '));
            buf = buf.slice(i + 2);
            if (!line) continue;
            const ev = JSON.parse(line.slice(6));
            if (ev.type === 'log') onLine(ev.log.message);
          }
        }
      } catch {
        // aborted at the end
      }
    })();
    return () => ctrl.abort();
  });
  await new Promise((r) => setTimeout(r, 1500));
  await fetch(`${url}/api/servers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'chatty', config: { command: process.execPath, args: [path.join(here, 'chatty-server.mjs')], env: { RATE: String(RATE), SECONDS: String(SECONDS), DELAY_MS: '1500' } } }),
  });
  await new Promise((r) => setTimeout(r, 1400));
  const cpu0 = cpuMs(hub.child.pid!);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000 + 2000));
  const cpu = cpuMs(hub.child.pid!) - cpu0;
  const wall = Date.now() - t0;
  for (const close of [...wsClients, ...sseAborts]) close();
  await stop(hub.child);
  rmSync(dir, { recursive: true, force: true });
  const expected = RATE * SECONDS * (WS + SSE);
  return [
    `${RATE} log lines/s for ${SECONDS} s to ${WS} WebSocket + ${SSE} SSE subscribers`,
    `delivered ${received} of ${expected} (${((received / expected) * 100).toFixed(1)}%)`,
    `lag p50 ${pct(lags, 50).toFixed(1)} ms, p99 ${pct(lags, 99).toFixed(1)} ms (target p99 < 50 ms)`,
    `Hub CPU ${((cpu / wall) * 100).toFixed(0)}% of one core (${cpu.toFixed(0)} ms over ${wall} ms)`,
  ];
}
