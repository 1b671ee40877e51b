import type { SettingsFile } from '@hub/contract';
import type { Principal } from './principal';

/** Admins and managers reach every server; others only what they are given. */
export function unrestricted(p: Principal): boolean {
  return p.role === 'admin' || p.role === 'manager' || p.allAccess === true;
}

/**
 * Catalog scopes a caller may use: its own servers, its groups' selections
 * and servers it owns. Null means unrestricted.
 */
export function grantedScopes(p: Principal, settings: Readonly<SettingsFile>): string[] | null {
  if (unrestricted(p)) return null;
  const scopes = new Set<string>();
  for (const s of p.servers) if (settings.mcpServers[s]) scopes.add(`server:${s}`);
  for (const [name, cfg] of Object.entries(settings.mcpServers)) if (cfg.owner === p.username) scopes.add(`server:${name}`);
  for (const g of p.groups) {
    const group = settings.groups.find((x) => x.id === g || x.name === g);
    if (group) scopes.add(`group:${group.id}`);
  }
  return [...scopes];
}

/** Names of the servers a caller may see; null means all. */
export function visibleServers(p: Principal, settings: Readonly<SettingsFile>): Set<string> | null {
  const scopes = grantedScopes(p, settings);
  if (scopes === null) return null;
  const names = new Set<string>();
  for (const s of scopes) {
    if (s.startsWith('server:')) names.add(s.slice(7));
    else {
      const g = settings.groups.find((x) => x.id === s.slice(6));
      for (const e of g?.servers ?? []) names.add(typeof e === 'string' ? e : e.name);
    }
  }
  return names;
}

/**
 * What of Hub's activity a caller may read: null (everything) for
 * unrestricted callers; for others, servers they can see, log entries of
 * those servers, and of tool calls only their own. Hub's own entries, which
 * speak of every server, stay with operators.
 */
export type ReadScope = {
  server: (name: string | undefined) => boolean;
  log: (e: { server?: string; type: string; userId?: string }) => boolean;
  call: (c: { server: string; user?: string }) => boolean;
};

export function readScope(p: Principal, settings: Readonly<SettingsFile>): ReadScope | null {
  const visible = visibleServers(p, settings);
  if (visible === null) return null;
  const server = (name: string | undefined) => name !== undefined && visible.has(name);
  return {
    server,
    log: (e) => server(e.server) && (e.type !== 'tool_call' || e.userId === p.username),
    call: (c) => server(c.server) && c.user === p.username,
  };
}
