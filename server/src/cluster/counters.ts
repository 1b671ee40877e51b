import { table, type Database } from '../store/pg-schema';

export type Count = { count: number; ttlMs: number };

/**
 * Counts per key within a time window (failed logins, requests per address).
 * In memory for a single Hub; in PostgreSQL when replicas must agree, so an
 * attacker cannot multiply the limit by the number of replicas.
 */
export interface Counters {
  /** Adds one to `key` in its running window (a new window when none runs). */
  incr(key: string, windowMs: number): Promise<Count>;
  /** The running window's count, without adding to it. */
  peek(key: string): Promise<Count | null>;
}

export class MemoryCounters implements Counters {
  private readonly counts = new Map<string, { count: number; until: number }>();

  async incr(key: string, windowMs: number): Promise<Count> {
    const now = Date.now();
    const seen = this.counts.get(key);
    const live = seen && seen.until > now ? seen : { count: 0, until: now + windowMs };
    live.count++;
    if (this.counts.size > 100_000) this.counts.clear();
    this.counts.set(key, live);
    return { count: live.count, ttlMs: live.until - now };
  }

  async peek(key: string): Promise<Count | null> {
    const seen = this.counts.get(key);
    const now = Date.now();
    return seen && seen.until > now ? { count: seen.count, ttlMs: seen.until - now } : null;
  }
}

export class PgCounters implements Counters {
  constructor(private readonly db: Database) {}

  async incr(key: string, windowMs: number): Promise<Count> {
    const { rows } = await this.db.pool.query<{ count: number; ttl: number }>(
      `INSERT INTO ${table(this.db, 'counters')} AS c (key, count, until) VALUES ($1, 1, now() + make_interval(secs => $2))
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN c.until <= now() THEN 1 ELSE c.count + 1 END,
         until = CASE WHEN c.until <= now() THEN EXCLUDED.until ELSE c.until END
       RETURNING count, (extract(epoch FROM until - now()) * 1000)::float8 AS ttl`,
      [key, windowMs / 1000],
    );
    return { count: rows[0]!.count, ttlMs: Math.max(0, rows[0]!.ttl) };
  }

  async peek(key: string): Promise<Count | null> {
    const { rows } = await this.db.pool.query<{ count: number; ttl: number }>(
      `SELECT count, (extract(epoch FROM until - now()) * 1000)::float8 AS ttl FROM ${table(this.db, 'counters')} WHERE key = $1 AND until > now()`,
      [key],
    );
    return rows[0] ? { count: rows[0].count, ttlMs: rows[0].ttl } : null;
  }

  /** Drops windows that ended (the leader's retention job). */
  async expire(): Promise<void> {
    await this.db.pool.query(`DELETE FROM ${table(this.db, 'counters')} WHERE until < now()`);
  }
}

/** A `@fastify/rate-limit` store over shared counters (its callback interface). */
export function rateLimitStore(counters: Counters) {
  return class SharedRateStore {
    incr(key: string, cb: (err: Error | null, res?: { current: number; ttl: number }) => void, timeWindow: number): void {
      counters.incr(`rate:${key}`, timeWindow).then((r) => cb(null, { current: r.count, ttl: r.ttlMs }), (err: Error) => cb(err));
    }
    read(key: string, cb: (err: Error | null, res?: { current: number; ttl: number }) => void, timeWindow: number): void {
      counters.peek(`rate:${key}`).then((r) => cb(null, r ? { current: r.count, ttl: r.ttlMs } : { current: 0, ttl: timeWindow }), (err: Error) => cb(err));
    }
    child() {
      return this;
    }
  };
}
