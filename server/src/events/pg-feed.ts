import type { EventBus } from './bus';
import type { PgListener } from './pg-listener';
import type { LogEntry, LogService } from '../monitoring/logs';
import type { Activity } from '../monitoring/activity';
import { table, type Database } from '../store/pg-schema';

type Row = { id: string; replica: string; entry: LogEntry };

/**
 * Log entries (tool calls among them) shared between replicas: each replica
 * writes its own in batches (every 200 ms, off the request path) and
 * announces the batch's id range. A replica reads other replicas' entries
 * only when someone looks: while it has live subscribers (log streams, call
 * feeds) it reads each announced range at once; otherwise the next read of
 * logs or monitoring catches up first (`catchUp`). A poll of ids alone (a batch
 * committed late can hold lower ids than one already read) catches a lost
 * announcement, and no entry is read twice. So replicas nobody watches spend
 * nothing on each other's traffic.
 */
export class PgFeed {
  private buffer: LogEntry[] = [];
  private timer?: NodeJS.Timeout;
  private poller?: NodeJS.Timeout;
  private last = 0;
  private readonly seen = new Set<number>();
  private pulling?: Promise<void>;
  /** Entries may have arrived that this replica has not read. */
  private behind = false;
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
        this.timer ??= setTimeout(() => void this.flush(), 200);
      }),
      await this.listener.listen('feed', (payload) => {
        const [from, lo, hi] = payload.split(' ');
        if (from === this.replica) return;
        if (!this.watched()) this.behind = true;
        else if (this.behind) this.pull();
        else this.fetch(from!, Number(lo), Number(hi));
      }),
      this.listener.onReconnect(() => (this.watched() ? this.pull() : void (this.behind = true))),
    );
    this.poller = setInterval(() => (this.watched() ? this.pull() : void (this.behind = true)), 2000);
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
        const { rows } = await this.db.pool.query<{ id: string }>(
          `INSERT INTO ${table(this.db, 'logs')} (at, replica, entry) SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::jsonb[]) RETURNING id`,
          [batch.map((e) => e.timestamp), batch.map(() => this.replica), batch.map(({ id: _id, ...e }) => JSON.stringify(e))],
        );
        const ids = rows.map((r) => Number(r.id));
        for (const id of ids) this.seen.add(id);
        await this.listener.notify('feed', `${this.replica} ${Math.min(...ids)} ${Math.max(...ids)}`);
      })
      .catch(() => undefined); // the database is away: these lines stay in this replica's window and files
    return this.writing;
  }

  /** Someone here follows live entries (this feed's own subscription aside). */
  private watched(): boolean {
    return this.bus.listeners('log.entry') > 1 || this.bus.listeners('tool.call') > 0;
  }

  /** Before a read of logs or monitoring: other replicas' entries up to now. */
  catchUp(): Promise<void> {
    if (!this.behind) return this.pulling ?? Promise.resolve();
    this.pull();
    return this.pulling ?? Promise.resolve();
  }

  /** Reads one announced batch of another replica. */
  private fetch(from: string, lo: number, hi: number): void {
    if (!(lo > 0 && hi >= lo)) return this.pull();
    void this.db.pool
      .query<Row>(`SELECT id, replica, entry FROM ${table(this.db, 'logs')} WHERE id BETWEEN $1 AND $2 AND replica = $3 ORDER BY id`, [lo, hi, from])
      .then(({ rows }) => this.take(rows))
      .catch(() => this.pull());
  }

  /** The safety net: ids of other replicas' recent entries, then only those not seen yet. */
  pull(): void {
    if (this.pulling) return void (this.again = true);
    this.behind = false;
    this.pulling = (async () => {
      do {
        this.again = false;
        const { rows: recent } = await this.db.pool.query<{ id: string }>(
          `SELECT id FROM ${table(this.db, 'logs')}
           WHERE replica <> $2 AND (id > $3 OR (id > $1 AND at > now() - interval '10 seconds')) ORDER BY id DESC LIMIT 5000`,
          [Math.max(0, this.last - 500), this.replica, this.last],
        );
        // After a long quiet spell only the latest entries matter: the windows keep no more.
        const missing = recent.map((r) => Number(r.id)).filter((id) => !this.seen.has(id)).slice(0, 2000);
        if (missing.length === 0) continue;
        const { rows } = await this.db.pool.query<Row>(`SELECT id, replica, entry FROM ${table(this.db, 'logs')} WHERE id = ANY($1) ORDER BY id`, [missing]);
        this.take(rows);
      } while (this.again);
    })()
      .catch(() => void (this.behind = true))
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
