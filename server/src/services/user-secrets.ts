import { TRPCError } from '@trpc/server';
import { userSecretNames, type SettingsFile, type UserSecretView } from '@hub/contract';
import type { Store } from '../store/store';
import { bareMap, putKey } from '../store/safe-maps';
import type { Principal } from '../auth/principal';
import { visibleServers } from '../auth/access';
import { secretOwners } from '../servers/personal';

/**
 * Each caller's own upstream credentials (`${user.secret.NAME}` in a server's
 * headers or env): write-only, kept per user or per API key, never returned.
 */
export class UserSecretsService {
  constructor(private readonly store: Store) {}

  /**
   * Whose values a request manages: the caller's own, or (`keyId`) one of the
   * caller's API keys; then whose value is used when that one has none.
   * Nobody manages another person's key: its calls would carry values they chose.
   */
  private owners(principal: Principal, keyId?: string): string[] {
    if (keyId === undefined) return secretOwners(principal);
    const key = this.store.get().apiKeys?.find((k) => k.id === keyId);
    if (!key || key.owner !== principal.username || principal.kind !== 'user') throw new TRPCError({ code: 'NOT_FOUND', message: `keyId: API key ${keyId} not found among yours` });
    return [`key:${key.id}`, `user:${key.owner}`];
  }

  /** The secrets of the caller (or of one of their keys), with the servers that need each; values never leave. */
  list(principal: Principal, keyId?: string): UserSecretView[] {
    const s = this.store.get();
    const [mine, fallback] = this.owners(principal, keyId).map((o) => (s.userSecrets && Object.hasOwn(s.userSecrets, o) ? s.userSecrets[o]! : bareMap<{ updatedAt: string }>()));
    const visible = visibleServers(principal, s);
    const views = new Map<string, UserSecretView>();
    const view = (name: string) => {
      let v = views.get(name);
      if (!v) {
        const own = Object.hasOwn(mine!, name);
        const inherited = !own && fallback !== undefined && Object.hasOwn(fallback, name);
        views.set(name, (v = { name, set: own || inherited, servers: [], ...(own ? { updatedAt: mine![name]!.updatedAt } : {}), ...(inherited ? { inherited } : {}) }));
      }
      return v;
    };
    for (const [server, cfg] of Object.entries(s.mcpServers)) {
      if (visible && !visible.has(server)) continue;
      for (const name of userSecretNames(cfg)) view(name).servers.push(server);
    }
    for (const name of Object.keys(mine!)) view(name);
    return [...views.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async set(principal: Principal, name: string, value: string, keyId?: string): Promise<UserSecretView> {
    const owner = this.owners(principal, keyId)[0]!;
    await this.store.update((d) => {
      d.userSecrets ??= bareMap();
      if (!Object.hasOwn(d.userSecrets, owner)) putKey(d.userSecrets, owner, bareMap());
      putKey(d.userSecrets[owner]!, name, { value, updatedAt: new Date().toISOString() });
    });
    return this.list(principal, keyId).find((v) => v.name === name)!;
  }

  /** Removing a secret that is not set is not an error: the end state is the same. */
  async remove(principal: Principal, name: string, keyId?: string): Promise<{ name: string; set: false }> {
    const owner = this.owners(principal, keyId)[0]!;
    const s = this.store.get();
    if (s.userSecrets && Object.hasOwn(s.userSecrets, owner) && Object.hasOwn(s.userSecrets[owner]!, name)) {
      await this.store.update((d) => {
        if (d.userSecrets && Object.hasOwn(d.userSecrets, owner)) delete d.userSecrets[owner]![name];
      });
    }
    return { name, set: false };
  }
}

/** Drops what an owner stored (a deleted user or revoked key), in a change of the settings. */
export function forgetSecrets(d: SettingsFile, owner: string): void {
  if (d.userSecrets && Object.hasOwn(d.userSecrets, owner)) delete d.userSecrets[owner];
}
