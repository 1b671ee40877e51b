import type pg from 'pg';
import type { Database } from '../store/pg-schema';

type Handler = (payload: string) => void;

/**
 * One connection that LISTENs for the whole replica. Notifications are small
 * pointers (a version, an id); receivers re-read what changed. When the
 * connection drops it is made again (backing off up to 5 s), and every
 * `onReconnect` handler runs, since notifications sent meanwhile are lost.
 */
export class PgListener {
  private client?: pg.Client;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly reconnectHandlers = new Set<() => void>();
  private closed = false;
  private delay = 250;
  private connecting?: Promise<void>;
  /** Connections made so far (1 when it never dropped), for monitoring and tests. */
  connections = 0;

  constructor(private readonly db: Database) {}

  /** The channel name for `topic`, kept apart per schema so several Hubs can share a database. */
  channel(topic: string): string {
    return `${this.db.schema}_${topic}`;
  }

  async start(): Promise<void> {
    await (this.connecting ??= this.connect());
  }

  private async connect(): Promise<void> {
    const { default: driver } = await import('pg');
    const client = new driver.Client({ connectionString: this.db.url, connectionTimeoutMillis: 5000, keepAlive: true, application_name: `${this.db.name}:listener` });
    client.on('notification', (n) => {
      for (const h of this.handlers.get(n.channel) ?? []) {
        try {
          h(n.payload ?? '');
        } catch {
          // one receiver's failure must not stop the others
        }
      }
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      client.removeAllListeners('end');
      void client.end().catch(() => undefined);
      this.retry();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN "${channel}"`);
    } catch (err) {
      void client.end().catch(() => undefined);
      if (this.connections === 0) throw err;
      return this.retry();
    }
    if (this.closed) return void client.end().catch(() => undefined);
    this.client = client;
    this.delay = 250;
    if (this.connections++ > 0) for (const h of this.reconnectHandlers) h();
  }

  private retry(): void {
    if (this.closed) return;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, 5000);
    setTimeout(() => void this.connect().catch(() => this.retry()), wait).unref();
  }

  /** Calls `handler` with each notification's payload on `topic`. */
  async listen(topic: string, handler: Handler): Promise<() => void> {
    const channel = this.channel(topic);
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      await this.client?.query(`LISTEN "${channel}"`);
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  onReconnect(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  /** The backend pid of the listening connection (tests terminate it to prove recovery). */
  async backendPid(): Promise<number | undefined> {
    const r = await this.client?.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return r?.rows[0]?.pid;
  }

  /** Sends a notification through the pool (any connection will do). */
  async notify(topic: string, payload: string): Promise<void> {
    await this.db.pool.query('SELECT pg_notify($1, $2)', [this.channel(topic), payload]);
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}
