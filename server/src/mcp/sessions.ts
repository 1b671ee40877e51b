import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Principal } from '../auth/principal';

/**
 * What a request into a live session looked like when the full MCP route
 * last admitted it: route, credential, Host and Origin, and the settings
 * revision its checks read (http/mcp-lane.ts).
 */
export type LanePass = { url: string; route: string; revision: number; credential: string; host?: string; origin?: string; until: number };

export type AgentSession = {
  id: string;
  kind: 'streamable' | 'sse';
  transport: Transport;
  server: Server;
  scopeKey: string;
  username: string | null;
  /** The caller as of its latest request (roles and access can change mid-session). */
  principal: Principal | null;
  /** The credential that opened the session, checked again after every settings change. */
  credential?: string;
  lastSeen: number;
  openStreams: number;
  dispose: () => void;
  lane?: LanePass;
};

/** Every live agent session; idle ones (no open stream, no request for `ttlMs`) are reaped. */
export class SessionTable {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly reaper: NodeJS.Timeout;

  constructor(private readonly ttlMs: number) {
    this.reaper = setInterval(() => this.reap(), Math.min(Math.max(ttlMs / 2, 1000), 60_000));
    this.reaper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): AgentSession | undefined {
    const s = this.sessions.get(id);
    if (s) s.lastSeen = Date.now();
    return s;
  }

  add(session: AgentSession): void {
    this.sessions.set(session.id, session);
  }

  /** Forgets the session and closes it (idempotent). */
  async close(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    s.dispose();
    await s.server.close().catch(() => undefined);
  }

  /**
   * After a settings change: each session's credential is checked again; a
   * session whose caller signed out, changed password, was deleted or whose
   * key was revoked is closed, the others see the caller as it now is.
   */
  async revalidate(resolve: (credential: string) => Promise<Principal | { error: string }>, authRequired: boolean): Promise<void> {
    for (const s of [...this.sessions.values()]) {
      if (!s.credential) {
        if (authRequired) void this.close(s.id);
        continue;
      }
      const now = await resolve(s.credential).catch(() => ({ error: 'Credential could not be checked' }));
      if ('error' in now || !now.permissions.has('tools:execute')) void this.close(s.id);
      else if (this.sessions.has(s.id)) s.principal = now;
    }
  }

  reap(now = Date.now()): void {
    for (const s of this.sessions.values()) {
      if (s.openStreams === 0 && now - s.lastSeen > this.ttlMs) void this.close(s.id);
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}
