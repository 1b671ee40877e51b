import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, loadConfig, type Config } from '@hub/server';

export const ADMIN = { username: 'admin', password: 'admin-pass-123' };

export type TestHub = {
  app: FastifyInstance;
  url: string;
  dir: string;
  settingsPath: string;
  /** fetch against the hub, JSON in and out. */
  request: (method: string, url: string, opts?: { body?: unknown; token?: string; headers?: Record<string, string> }) => Promise<{ status: number; body: any; headers: Headers }>;
  login: (username?: string, password?: string) => Promise<string>;
  close: (opts?: { keepDir?: boolean }) => Promise<void>;
};

export async function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'hub-test-'));
}

/** A real Hub on a loopback port with its own settings file. */
export async function startHub(opts: { dir?: string; env?: Record<string, string>; config?: Partial<Config> } = {}): Promise<TestHub> {
  const dir = opts.dir ?? (await tempDir());
  const settingsPath = path.join(dir, 'mcp_settings.json');
  const config = loadConfig(
    { MCPHUB_SETTING_PATH: settingsPath, AUTH_USERNAME: ADMIN.username, AUTH_PASSWORD: ADMIN.password, ...opts.env },
    { logLevel: 'silent', ...opts.config },
  );
  const app = await buildApp(config);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const request: TestHub['request'] = async (method, url, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    }
    const res = await fetch(address + url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    app,
    url: address,
    dir,
    settingsPath,
    request,
    async login(username = ADMIN.username, password = ADMIN.password) {
      const res = await request('POST', '/api/auth/login', { body: { username, password } });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    async close(o = {}) {
      await app.close();
      if (!o.keepDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Adds a server through REST and waits until it is connected. */
export async function addConnectedServer(hub: TestHub, token: string, name: string, config: Record<string, unknown>, timeoutMs = 10_000): Promise<void> {
  const res = await hub.request('POST', '/api/servers', { token, body: { name, config } });
  if (res.status >= 300) throw new Error(`adding ${name}: ${JSON.stringify(res.body)}`);
  const deadline = Date.now() + timeoutMs;
  while ((await hub.request('GET', `/api/servers/${name}`, { token })).body.data?.status !== 'connected') {
    if (Date.now() > deadline) throw new Error(`${name} did not connect`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
