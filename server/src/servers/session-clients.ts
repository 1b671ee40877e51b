import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UpstreamError } from './upstream';

const IDLE_MS = 600_000;
const MAX = 1000;

/**
 * Dedicated upstream sessions of callers' own session ids (REST `x-session-id`),
 * made on first use and closed after 10 idle minutes, so an HTTP upstream's
 * per-session state carries across one caller's calls.
 */
export class SessionClients {
  private readonly clients = new Map<string, { client: Promise<Client>; lastUsed: number }>();
  private reaper?: NodeJS.Timeout;

  constructor(private readonly make: () => Promise<Client>) {}

  get(id: string): Promise<Client> {
    const hit = this.clients.get(id);
    if (hit) {
      hit.lastUsed = Date.now();
      return hit.client;
    }
    if (this.clients.size >= MAX) throw new UpstreamError('Too many caller sessions on this server', 'upstream');
    const client = this.make();
    client.catch(() => this.clients.delete(id));
    this.clients.set(id, { client, lastUsed: Date.now() });
    this.reaper ??= setInterval(() => {
      for (const [sid, s] of this.clients) {
        if (Date.now() - s.lastUsed <= IDLE_MS) continue;
        this.clients.delete(sid);
        void s.client.then((c) => c.close()).catch(() => undefined);
      }
    }, 60_000).unref();
    return client;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.reaper);
    this.reaper = undefined;
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map(async (s) => (await s.client.catch(() => undefined))?.close().catch(() => undefined)));
  }
}
