import { roles } from '@hub/contract';
import { lazyPool, type LazyPool } from '../store/pg-pool';
import type { UserRecord } from '@hub/contract';
import type { Store } from '../store/store';

type Row = Record<string, unknown>;

const ident = (table: string) => table.split('.').map((p) => `"${p.replace(/"/g, '""')}"`).join('.');

function list(v: unknown): string[] | undefined {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      return (JSON.parse(v) as unknown[]).map(String);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Users kept in a PostgreSQL table (`auth.provider = database`): columns
 * `username`, `password` (bcrypt or argon2 hash) and optionally `role`,
 * `is_admin`/`isadmin`, `email`, `servers`, `groups`.
 */
export class DatabaseUsers {
  private pool?: LazyPool;
  private poolUrl?: string;

  constructor(private readonly store: Store) {}

  private settings(): { url: string; table: string } | null {
    const auth = this.store.get().systemConfig.auth;
    if (auth?.provider !== 'database' || !auth.database?.url) return null;
    return { url: auth.database.url, table: auth.database.userTable ?? 'users' };
  }

  enabled(): boolean {
    return this.settings() !== null;
  }

  private poolFor(url: string): LazyPool {
    if (!this.pool || this.poolUrl !== url) {
      void this.pool?.end().catch(() => undefined);
      this.pool = lazyPool({ connectionString: url, max: 4, connectionTimeoutMillis: 5000 });
      this.poolUrl = url;
    }
    return this.pool;
  }

  async find(username: string): Promise<UserRecord | undefined> {
    const s = this.settings();
    if (!s) return undefined;
    const { rows } = await this.poolFor(s.url).query<Row>(`SELECT * FROM ${ident(s.table)} WHERE username = $1 LIMIT 1`, [username]);
    const r = rows[0];
    if (!r) return undefined;
    const password = (r.password ?? r.password_hash) as string | undefined;
    if (!password) return undefined;
    const isAdmin = r.is_admin === true || r.isadmin === true || r.role === 'admin';
    const role = typeof r.role === 'string' && (roles as readonly string[]).includes(r.role) ? (r.role as UserRecord['role']) : isAdmin ? 'admin' : 'user';
    return {
      username: String(r.username),
      password,
      role,
      isAdmin: role === 'admin',
      email: typeof r.email === 'string' ? r.email : undefined,
      servers: list(r.servers) ?? [],
      groups: list(r.groups) ?? [],
    };
  }

  async close(): Promise<void> {
    await this.pool?.end().catch(() => undefined);
  }
}
