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

/**
 * Request counters shared by replicas without a database round trip per
 * request: each replica counts locally and every `everyMs` adds its counts
 * to PostgreSQL and reads the Hub-wide totals back. A limit may be passed by
 * what the replicas admit within one sync interval; the request path never waits.
 */
export class SyncedCounters implements Counters {
  private readonly local = new Map<string, { base: number; delta: number; until: number; windowMs: number }>();
  private readonly timer: NodeJS.Timeout;
  private syncing = false;

  constructor(
    private readonly db: Database,
    everyMs = 250,
  ) {
    this.timer = setInterval(() => void this.sync(), everyMs);
    this.timer.unref();
  }

  async incr(key: string, windowMs: number): Promise<Count> {
    const now = Date.now();
    let c = this.local.get(key);
    if (!c || c.until <= now) {
      c = { base: 0, delta: 0, until: now + windowMs, windowMs };
      this.local.set(key, c);
    }
    c.delta++;
    return { count: c.base + c.delta, ttlMs: c.until - now };
  }

  async peek(key: string): Promise<Count | null> {
    const c = this.local.get(key);
    const now = Date.now();
    return c && c.until > now ? { count: c.base + c.delta, ttlMs: c.until - now } : null;
  }

  async sync(): Promise<void> {
    if (this.syncing) return;
    const now = Date.now();
    for (const [k, c] of this.local) if (c.until <= now) this.local.delete(k);
    const due = [...this.local].filter(([, c]) => c.delta > 0);
    if (due.length === 0) return;
    this.syncing = true;
    const sent = due.map(([, c]) => c.delta);
    try {
      const { rows } = await this.db.pool.query<{ key: string; count: number; ttl: number }>(
        `INSERT INTO ${table(this.db, 'counters')} AS c (key, count, until)
           SELECT k, d, now() + make_interval(secs => w) FROM unnest($1::text[], $2::int[], $3::float8[]) AS t(k, d, w)
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN c.until <= now() THEN EXCLUDED.count ELSE c.count + EXCLUDED.count END,
           until = CASE WHEN c.until <= now() THEN EXCLUDED.until ELSE c.until END
         RETURNING key, count, (extract(epoch FROM until - now()) * 1000)::float8 AS ttl`,
        [due.map(([k]) => k), sent, due.map(([, c]) => c.windowMs / 1000)],
      );
      const at = Date.now();
      for (const [i, [k, c]] of due.entries()) {
        const row = rows.find((r) => r.key === k);
        if (!row || this.local.get(k) !== c) continue;
        c.delta -= sent[i]!;
        c.base = row.count;
        c.until = at + Math.max(0, row.ttl);
      }
    } catch {
      // The database is away: counts stay local and are sent with the next sync.
    } finally {
      this.syncing = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
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
