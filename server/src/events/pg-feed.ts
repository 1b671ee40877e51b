import type { EventBus } from './bus';
import type { PgListener } from './pg-listener';
import type { LogEntry, LogService } from '../monitoring/logs';
import type { Activity } from '../monitoring/activity';
import { table, type Database } from '../store/pg-schema';

type Row = { id: string; replica: string; entry: LogEntry };

/**
 * Log entries (tool calls among them) shared between replicas: each replica
 * writes its own in batches (every 100 ms, off the request path), then
 * notifies; the others read what is new and show it in their logs, live
 * streams and monitoring. A poll catches a lost notification. Ids are read
 * with a look-back, since a batch committed late can hold lower ids than one
 * already read.
 */
export class PgFeed {
  private buffer: LogEntry[] = [];
  private timer?: NodeJS.Timeout;
  private poller?: NodeJS.Timeout;
  private last = 0;
  private readonly seen = new Set<number>();
  private pulling?: Promise<void>;
  private again = false;
  private writing: Promise<void> = Promise.resolve();
  private readonly offs: Array<() => void> = [];

  constructor(
    private readonly db: Database,
    private readonly listener: PgListener,
    private readonly replica: string,
    private readonly bus: EventBus,
    private readonly logs: LogService,
    private readonly activity: Activity,
  ) {}

  async start(): Promise<void> {
    // What the other replicas logged lately shows at once in this one's window.
    const { rows } = await this.db.pool.query<Row>(
      `SELECT id, replica, entry FROM (SELECT id, replica, entry FROM ${table(this.db, 'logs')} ORDER BY id DESC LIMIT 2000) r ORDER BY id`,
    );
    this.take(rows);
    const { rows: max } = await this.db.pool.query<{ id: string | null }>(`SELECT max(id) AS id FROM ${table(this.db, 'logs')}`);
    this.last = Math.max(this.last, Number(max[0]?.id ?? 0));
    this.offs.push(
      this.bus.subscribe('log.entry', (e) => {
        if (e.replica) return; // another replica's, already stored
        this.buffer.push(e);
        this.timer ??= setTimeout(() => void this.flush(), 100);
      }),
      await this.listener.listen('feed', (from) => {
        if (from !== this.replica) this.pull();
      }),
      this.listener.onReconnect(() => this.pull()),
    );
    this.poller = setInterval(() => this.pull(), 2000);
    this.poller.unref();
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length === 0) return this.writing;
    this.writing = this.writing
      .then(async () => {
        await this.db.pool.query(
          `INSERT INTO ${table(this.db, 'logs')} (at, replica, entry) SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::jsonb[])`,
          [batch.map((e) => e.timestamp), batch.map(() => this.replica), batch.map(({ id: _id, ...e }) => JSON.stringify(e))],
        );
        await this.listener.notify('feed', this.replica);
      })
      .catch(() => undefined); // the database is away: these lines stay in this replica's window and files
    return this.writing;
  }

  /** Reads other replicas' new entries, one pass at a time. */
  pull(): void {
    if (this.pulling) return void (this.again = true);
    this.pulling = (async () => {
      do {
        this.again = false;
        const { rows } = await this.db.pool.query<Row>(
          `SELECT id, replica, entry FROM ${table(this.db, 'logs')}
           WHERE replica <> $2 AND (id > $3 OR (id > $1 AND at > now() - interval '10 seconds')) ORDER BY id LIMIT 5000`,
          [Math.max(0, this.last - 500), this.replica, this.last],
        );
        this.take(rows);
      } while (this.again);
    })()
      .catch(() => undefined)
      .finally(() => (this.pulling = undefined));
  }

  private take(rows: Row[]): void {
    for (const r of rows) {
      const id = Number(r.id);
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      this.last = Math.max(this.last, id);
      if (r.replica === this.replica) continue;
      const entry = this.logs.ingest({ ...r.entry, replica: r.replica });
      this.activity.ingest(entry);
    }
    if (this.seen.size > 20_000) for (const id of this.seen) if (id < this.last - 1000) this.seen.delete(id);
  }

  /** Drops entries older than `days` (the leader's retention job). */
  async prune(days: number): Promise<void> {
    await this.db.pool.query(`DELETE FROM ${table(this.db, 'logs')} WHERE at < now() - make_interval(days => $1)`, [days]);
  }

  async close(): Promise<void> {
    clearInterval(this.poller);
    for (const off of this.offs) off();
    await this.flush();
  }
}
