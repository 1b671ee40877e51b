import { TRPCError } from '@trpc/server';
import { userSecretPattern, type ServerConfig, type SettingsFile } from '@hub/contract';
import type { Principal } from '../auth/principal';
import type { Upstream } from './upstream';

/** Where a caller's secrets are kept: an API key's own first, then its user's. */
export function secretOwners(p: Principal): string[] {
  const user = `user:${p.username}`;
  return p.kind === 'apiKey' && p.keyId ? [`key:${p.keyId}`, user] : [user];
}

/** The caller's values of `names`; a clear error naming what is missing. */
export function callerSecrets(s: Readonly<SettingsFile>, server: string, names: readonly string[], p: Principal | null): Record<string, string> {
  if (!p) throw new TRPCError({ code: 'UNAUTHORIZED', message: `Server ${server} uses each caller's own credentials: sign in or use an API key` });
  const values: Record<string, string> = Object.create(null);
  const missing: string[] = [];
  const owners = secretOwners(p).map((o) => (s.userSecrets && Object.hasOwn(s.userSecrets, o) ? s.userSecrets[o]! : undefined));
  for (const name of names) {
    const found = owners.find((o) => o && Object.hasOwn(o, name));
    if (found) values[name] = found[name]!.value;
    else missing.push(name);
  }
  if (missing.length) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: `Server ${server} needs your secret ${missing.join(', ')}: set it with PUT /api/auth/secrets/${missing[0]} or on the Account page` });
  }
  return values;
}

/** The config with each `${user.secret.NAME}` in headers and env replaced by `values` ('' when absent). */
export function withSecrets(cfg: ServerConfig, values: Readonly<Record<string, string>>): ServerConfig {
  const fill = (m?: Record<string, string>) =>
    m && Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.replace(userSecretPattern, (_, n: string) => (Object.hasOwn(values, n) ? values[n]! : ''))]));
  return { ...cfg, ...(cfg.headers ? { headers: fill(cfg.headers) } : {}), ...(cfg.env ? { env: fill(cfg.env) } : {}) };
}

type Lane = { upstream: Upstream; usedAt: number };

/**
 * The connections of one server that uses per-caller secrets: one per set of
 * secret values (an HTTP session or a stdio process each), never shared by
 * callers with different credentials. Idle ones are closed.
 */
export class Lanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly make: (values: Record<string, string>) => Upstream,
    private readonly idleMs = 10 * 60_000,
    // Each lane may be a process: a caller minting keys with new values cannot start more than this.
    private readonly max = 64,
  ) {
    this.reaper = setInterval(() => this.reap(Date.now() - this.idleMs), Math.min(idleMs, 60_000));
    this.reaper.unref();
  }

  /** The connection for these values (in the server's order of names, as `callerSecrets` gives them), started on first use. */
  get(values: Record<string, string>): Upstream {
    const key = JSON.stringify(Object.values(values));
    let lane = this.lanes.get(key);
    if (!lane) {
      if (this.lanes.size >= this.max) this.reap(Infinity, 1);
      lane = { upstream: this.make(values), usedAt: Date.now() };
      this.lanes.set(key, lane);
      void lane.upstream.start();
    }
    lane.usedAt = Date.now();
    return lane.upstream;
  }

  /** Any connected lane's state (for a server whose own connection, without secrets, fails). */
  anyState(): Upstream['state'] | undefined {
    for (const l of this.lanes.values()) if (l.upstream.state.status === 'connected') return l.upstream.state;
    return undefined;
  }

  /** Closes lanes idle since `before`; with `count`, only that many, oldest first. */
  private reap(before: number, count = Infinity): void {
    const old = [...this.lanes].filter(([, l]) => l.usedAt < before).sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [key, lane] of old.slice(0, count)) {
      this.lanes.delete(key);
      void lane.upstream.stop();
    }
  }

  async stopAll(): Promise<void> {
    clearInterval(this.reaper);
    const all = [...this.lanes.values()];
    this.lanes.clear();
    await Promise.all(all.map((l) => l.upstream.stop()));
  }
}
