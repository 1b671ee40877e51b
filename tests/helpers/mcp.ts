import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { repoRoot } from './process';

/** The bin of @modelcontextprotocol/server-everything, run with node directly (npx costs ~200 ms more). */
export const everythingBin = path.join(repoRoot, 'tests/node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const fixture = (name: string) => path.join(repoRoot, 'tests/fixtures', name);

export function stdioEverything() {
  return { type: 'stdio', command: process.execPath, args: [everythingBin, 'stdio'] };
}

/** An MCP client connected to a Hub route, as an agent would be. */
export async function agent(url: string, opts: { token?: string; sse?: boolean } = {}): Promise<Client> {
  const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
  const client = new Client({ name: 'test-agent', version: '1.0.0' }, { capabilities: {} });
  const transport = opts.sse
    ? new SSEClientTransport(new URL(url), {
        requestInit: { headers },
        eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
      })
    : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

export async function waitFor<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
