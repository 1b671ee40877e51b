import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Principal } from '../auth/principal';
import type { SessionRecords } from './session-records';

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

/**
 * Every live agent session; idle ones (no open stream, no request for `ttlMs`)
 * are reaped. Streamable sessions are also recorded (`records`), so another
 * replica, or this Hub after a restart, can take them over: a session ended
 * here is forgotten there, and one ended elsewhere is closed here.
 */
export class SessionTable {
  private readonly sessions = new Map<string, AgentSession>();
  private readonly reaper: NodeJS.Timeout;
  private readonly toucher?: NodeJS.Timeout;
  private touchedAt = Date.now();

  constructor(
    private readonly ttlMs: number,
    readonly records?: SessionRecords,
  ) {
    this.reaper = setInterval(() => this.reap(), Math.min(Math.max(ttlMs / 2, 1000), 60_000));
    this.reaper.unref();
    if (records) {
      // Use is recorded every few seconds for the sessions seen since, never per request.
      this.toucher = setInterval(() => this.touch(), Math.min(Math.max(ttlMs / 4, 1000), 10_000));
      this.toucher.unref();
      records.onRemoved((id) => void this.close(id, false));
    }
  }

  private touch(): void {
    const since = this.touchedAt;
    this.touchedAt = Date.now();
    const ids = [...this.sessions.values()].filter((s) => s.kind === 'streamable' && (s.lastSeen >= since || s.openStreams > 0)).map((s) => s.id);
    this.records?.touch(ids);
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

  /** Closes the session (idempotent); `forget`: it has ended for good, not only in this process. */
  async close(id: string, forget = true): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    if (forget && s.kind === 'streamable') this.records?.remove(id);
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
    clearInterval(this.toucher);
    this.touch();
    // Stopping this process does not end agents' sessions: they resume on the next start or another replica.
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id, false)));
    await this.records?.close();
  }
}
