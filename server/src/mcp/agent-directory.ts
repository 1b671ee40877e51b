import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { AgentLink, AgentReach } from '../servers/upstream';

/** RFC 5424 severities as MCP names them, most verbose first. */
export const logLevels: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
export const severity = (l: string): number => {
  const i = logLevels.indexOf(l as LoggingLevel);
  return i < 0 ? 1 : i;
};

/** One live agent session as upstreams may reach it outside a call. */
export type AgentEntry = {
  link: AgentLink;
  /** The level the agent set with `logging/setLevel` (none: everything). */
  level?: LoggingLevel;
  /** The agent declared the roots capability. */
  roots: boolean;
  /** Last time it sent a request, so an upstream's question goes to the agent most likely there. */
  active: number;
};

/**
 * Which agent sessions use which upstream server: where an upstream's log
 * messages and `roots/list` requests made outside any call go, and what log
 * level each shared upstream connection is set to (the most verbose any of
 * its agents asked for; Hub filters per agent on the way out).
 */
export class AgentDirectory implements AgentReach {
  private readonly byServer = new Map<string, Set<AgentEntry>>();
  private readonly servers = new Map<AgentEntry, Set<string>>();
  private readonly sentLevel = new Map<string, LoggingLevel>();

  constructor(private readonly setUpstreamLevel: (server: string, level: LoggingLevel) => Promise<void>) {}

  /** The entry now uses exactly `servers`; levels are re-applied where that changes them. */
  place(entry: AgentEntry, servers: Set<string>): void {
    const before = this.servers.get(entry) ?? new Set<string>();
    for (const s of before) if (!servers.has(s)) this.byServer.get(s)?.delete(entry);
    for (const s of servers) {
      let set = this.byServer.get(s);
      if (!set) this.byServer.set(s, (set = new Set()));
      set.add(entry);
    }
    this.servers.set(entry, servers);
    if (entry.level) this.applyLevels(new Set([...before, ...servers]));
  }

  remove(entry: AgentEntry): void {
    const servers = this.servers.get(entry) ?? new Set<string>();
    for (const s of servers) this.byServer.get(s)?.delete(entry);
    this.servers.delete(entry);
  }

  setLevel(entry: AgentEntry, level: LoggingLevel): void {
    entry.level = level;
    this.applyLevels(this.servers.get(entry) ?? new Set());
  }

  agents(server: string): AgentEntry[] {
    return [...(this.byServer.get(server) ?? [])];
  }

  /** The agent to ask on an upstream's behalf: the most recently active one that can answer. */
  pick(server: string, can: (e: AgentEntry) => boolean): AgentEntry | undefined {
    return this.agents(server)
      .filter(can)
      .sort((a, b) => b.active - a.active)[0];
  }

  notifyAll(server: string, notification: { method: string; params?: Record<string, unknown> }): void {
    for (const e of this.agents(server)) void e.link.sendNotification(notification).catch(() => undefined);
  }

  ask(server: string, request: { method: string; params?: Record<string, unknown> }, need: 'roots'): Promise<unknown> | undefined {
    return this.pick(server, (e) => (need === 'roots' ? e.roots : true))?.link.sendRequest(request);
  }

  /** A shared upstream connection was (re)made: it starts at its own default level. */
  connected(server: string): void {
    this.sentLevel.delete(server);
    this.applyLevels(new Set([server]));
  }

  private applyLevels(servers: Set<string>): void {
    for (const s of servers) {
      const levels = this.agents(s).map((e) => e.level).filter((l): l is LoggingLevel => l !== undefined);
      if (levels.length === 0) continue;
      const want = levels.reduce((a, b) => (severity(a) <= severity(b) ? a : b));
      if (this.sentLevel.get(s) === want) continue;
      this.sentLevel.set(s, want);
      void this.setUpstreamLevel(s, want).catch(() => this.sentLevel.delete(s));
    }
  }
}
