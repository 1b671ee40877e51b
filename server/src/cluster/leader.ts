import type pg from 'pg';
import type { Database } from '../store/pg-schema';

/** Who runs the jobs that must run once per Hub, not once per replica. */
export interface Leadership {
  readonly isLeader: boolean;
  /** Calls `handler` now and on every change of leadership. */
  watch(handler: (leader: boolean) => void): () => void;
  close(): Promise<void>;
}

/** A single Hub leads itself. */
export class SoleLeader implements Leadership {
  readonly isLeader = true;
  watch(handler: (leader: boolean) => void): () => void {
    handler(true);
    return () => undefined;
  }
  async close(): Promise<void> {}
}

/**
 * The replica holding a PostgreSQL advisory lock leads. The lock lives as
 * long as the session that took it: when the leader dies its connection
 * ends, the lock is freed, and the next replica to try (every `tryMs`) takes
 * it over. A leader that loses its connection steps down at once.
 */
export class AdvisoryLeader implements Leadership {
  isLeader = false;
  private client?: pg.Client;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly handlers = new Set<(leader: boolean) => void>();

  constructor(
    private readonly db: Database,
    private readonly tryMs = 2000,
  ) {}

  start(): void {
    void this.attempt();
    this.timer = setInterval(() => void this.attempt(), this.tryMs);
    this.timer.unref();
  }

  private set(leader: boolean): void {
    if (leader === this.isLeader) return;
    this.isLeader = leader;
    for (const h of this.handlers) h(leader);
  }

  private async attempt(): Promise<void> {
    if (this.closed || this.isLeader) return;
    try {
      if (!this.client) {
        const { default: driver } = await import('pg');
        const client = new driver.Client({ connectionString: this.db.url, connectionTimeoutMillis: 5000, keepAlive: true, application_name: `${this.db.name}:leader` });
        const lost = () => {
          if (this.client !== client) return;
          this.client = undefined;
          void client.end().catch(() => undefined);
          this.set(false);
        };
        client.on('error', lost);
        client.on('end', lost);
        await client.connect();
        if (this.closed) return void client.end();
        this.client = client;
      }
      const { rows } = await this.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [`hub-leader:${this.db.schema}`]);
      if (rows[0]?.ok) this.set(true);
    } catch {
      // the database is away; the next attempt tries again
    }
  }

  watch(handler: (leader: boolean) => void): () => void {
    this.handlers.add(handler);
    handler(this.isLeader);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.set(false);
    await this.client?.end().catch(() => undefined);
  }
}
