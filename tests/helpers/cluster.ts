import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startMain, stop, type Started } from './process';
import { ADMIN } from './hub';
import { PG_URL } from './pg';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export type Replica = Started & { id: string; port: number };

/** A Hub replica as an operator runs one: the compiled Hub, `DATABASE_URL`, its own port and data folder. */
export async function startReplica(id: string, schema: string, port = 0, env: Record<string, string> = {}): Promise<Replica> {
  const dir = await mkdtemp(path.join(tmpdir(), `hub-${id}-`));
  const started = await startMain({
    DATABASE_URL: PG_URL,
    HUB_DB_SCHEMA: schema,
    HUB_REPLICA_ID: id,
    PORT: String(port),
    AUTH_USERNAME: ADMIN.username,
    AUTH_PASSWORD: ADMIN.password,
    MCPHUB_SETTING_PATH: path.join(dir, 'mcp_settings.json'),
    ...env,
  });
  return { ...started, id, port: Number(new URL(started.url).port) };
}

/** Debian's HAProxy in front of the replicas: round robin, no affinity, dead replicas skipped. */
export async function startHaproxy(replicas: Array<{ id: string; port: number }>): Promise<{ url: string; child: ChildProcess; stop: () => Promise<unknown> }> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'hub-haproxy-'));
  const cfg = path.join(dir, 'haproxy.cfg');
  await writeFile(
    cfg,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 1s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout tunnel 1h',
      '  retries 3',
      '  option redispatch 1',
      'frontend hub',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      '  option httpchk',
      '  http-check send meth GET uri /health ver HTTP/1.1 hdr Host 127.0.0.1',
      ...replicas.map((r) => `  server ${r.id} 127.0.0.1:${r.port} check inter 300ms fall 1 rise 1`),
      '',
    ].join('\n'),
  );
  const child = spawn('haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${out}`);
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not answer: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child, stop: () => stop(child) };
}
