import { StoreBase } from './write-timing';
import { settingsFileSchema, type SettingsFile } from '@hub/contract';
import { joinSecrets, splitSecrets, type SecretEntry } from '../auth/secrets';
import type { PgListener } from '../events/pg-listener';
import { migrateLegacyKeys } from './migrate';
import { table, type Database } from './pg-schema';
import { withSafeMaps } from './safe-maps';
import { StoreLoadError, type Store, type StoreStats } from './store';

type Pending = { change: (draft: SettingsFile) => unknown; resolve: (v: unknown) => void; reject: (err: unknown) => void; result?: unknown };
type Row = { version: string; doc: unknown; secrets: SecretEntry[] };

function parse(doc: unknown, where: string): SettingsFile {
  const parsed = settingsFileSchema.safeParse(migrateLegacyKeys(doc ?? {}));
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new StoreLoadError(`Settings in ${where} are invalid: ${issues.join('; ')}`);
  }
  return withSafeMaps(parsed.data);
}

/**
 * The settings document in one PostgreSQL row, shared by every replica. Each
 * write is one transaction guarded by the row's version (optimistic
 * concurrency): a replica that lost the race re-reads the winner's document,
 * applies its own changes again on top and retries, so no acknowledged change
 * is lost and none is applied twice. Secrets (password and key hashes, TOTP
 * and OAuth secrets, upstream credentials) live in their own column, out of
 * the readable document. Other replicas' writes arrive by NOTIFY (a version
 * number, then a re-read), with a poll as the safety net.
 */
export class PgStore extends StoreBase implements Store {
  private state!: SettingsFile;
  private durable!: SettingsFile;
  private version = 0;
  private pending: Pending[] = [];
  private chain: Promise<void> = Promise.resolve();
  private flushing = false;
  private poller?: NodeJS.Timeout;
  private stopListening?: () => void;

  private constructor(
    private readonly db: Database,
    private readonly replica: string,
  ) {
    super();
  }

  static async open(db: Database, opts: { listener?: PgListener; replica: string; pollMs?: number }): Promise<PgStore> {
    const store = new PgStore(db, opts.replica);
    const initial = parse({}, 'defaults');
    const { open, secrets } = splitSecrets(initial);
    await db.pool.query(
      `INSERT INTO ${table(db, 'settings')} (id, version, doc, secrets, updated_by) VALUES (1, 1, $1, $2, $3) ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(open), JSON.stringify(secrets), opts.replica],
    );
    const row = await store.read();
    store.durable = store.state = row.doc;
    store.version = row.version;
    if (opts.listener) {
      store.stopListening = await opts.listener.listen('settings', (payload) => {
        if (Number(payload) > store.version) store.refresh();
      });
      opts.listener.onReconnect(() => store.refresh());
    }
    // The safety net for a lost notification; cheap (one indexed integer).
    store.poller = setInterval(() => void store.pollVersion(), opts.pollMs ?? 2000);
    store.poller.unref();
    return store;
  }

  private async read(): Promise<{ version: number; doc: SettingsFile }> {
    const { rows } = await this.db.pool.query<Row>(`SELECT version, doc, secrets FROM ${table(this.db, 'settings')} WHERE id = 1`);
    const row = rows[0];
    if (!row) throw new StoreLoadError('The settings row is missing from the database');
    return { version: Number(row.version), doc: parse(joinSecrets(row.doc, row.secrets ?? []), `${this.db.schema}.settings`) };
  }

  private async pollVersion(): Promise<void> {
    try {
      const { rows } = await this.db.pool.query<{ version: string }>(`SELECT version FROM ${table(this.db, 'settings')} WHERE id = 1`);
      if (rows[0] && Number(rows[0].version) > this.version) this.refresh();
    } catch {
      // the database is away; the next poll tries again
    }
  }

  /** Re-reads the document after another replica wrote it (queued behind any write of ours). */
  private refresh(): void {
    this.chain = this.chain.then(async () => {
      if (this.flushing) return;
      const row = await this.read().catch(() => null);
      if (!row || row.version <= this.version) return;
      this.version = row.version;
      this.durable = row.doc;
      this.rebase();
    });
  }

  /** state = durable with the changes not yet written applied on top; those that no longer apply are refused. */
  private rebase(): void {
    let next = this.durable;
    for (const p of [...this.pending]) {
      try {
        next = this.apply(next, p);
      } catch (err) {
        this.pending.splice(this.pending.indexOf(p), 1);
        p.reject(err);
      }
    }
    this.state = next;
    this.emit();
  }

  private apply(base: SettingsFile, p: Pending): SettingsFile {
    const draft = withSafeMaps(structuredClone(base));
    p.result = p.change(draft);
    const checked = settingsFileSchema.safeParse(draft);
    if (!checked.success) {
      const issues = checked.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      throw new Error(`Settings are invalid: ${issues.join('; ')}`);
    }
    return withSafeMaps(checked.data);
  }

  get(): Readonly<SettingsFile> {
    return this.state;
  }

  update<T>(change: (draft: SettingsFile) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { change, resolve: resolve as (v: unknown) => void, reject };
      try {
        this.state = this.apply(this.state, p);
      } catch (err) {
        return reject(err);
      }
      this.pending.push(p);
      this.emit();
      if (!this.flushing) this.flush();
    });
  }

  private flush(): void {
    this.flushing = true;
    this.chain = this.chain.then(async () => {
      try {
        while (this.pending.length > 0) await this.writeBatch();
      } catch (err) {
        this.refuseAll(err);
      }
      this.flushing = false;
    });
  }

  /** Writes every pending change as one new version; on a lost race, rebases and tries again. */
  private async writeBatch(): Promise<void> {
    const batch: Pending[] = [];
    let next = this.durable;
    for (const p of [...this.pending]) {
      try {
        next = this.apply(next, p);
        batch.push(p);
      } catch (err) {
        this.pending.splice(this.pending.indexOf(p), 1);
        p.reject(err);
      }
    }
    const { open, secrets } = splitSecrets(next);
    const started = performance.now();
    let won: boolean;
    try {
      const r = await this.db.pool.query(
        // The notification is sent on commit, in the same round trip.
        `WITH u AS (UPDATE ${table(this.db, 'settings')} SET version = version + 1, doc = $1, secrets = $2, updated_at = now(), updated_by = $3
           WHERE id = 1 AND version = $4 RETURNING version)
         SELECT pg_notify($5, version::text) FROM u`,
        [JSON.stringify(open), JSON.stringify(secrets), this.replica, this.version, `${this.db.schema}_settings`],
      );
      won = r.rowCount === 1;
    } catch (err) {
      return this.refuseAll(err);
    }
    if (!won) {
      this.timing.conflicts++;
      const row = await this.read();
      this.version = row.version;
      this.durable = row.doc;
      this.rebase();
      return;
    }
    this.timing.note(performance.now() - started);
    this.version++;
    this.durable = next;
    this.pending = this.pending.filter((p) => !batch.includes(p));
    if (this.pending.length === 0) this.state = next;
    for (const p of batch) p.resolve(p.result);
  }

  /** Not durable: every change not yet written is refused and memory goes back to what is stored. */
  private refuseAll(err: unknown): void {
    this.timing.failed++;
    const refused = this.pending;
    this.pending = [];
    this.state = this.durable;
    this.emit();
    for (const p of refused) p.reject(err);
  }


  stats(): StoreStats {
    const t = this.timing;
    return t.stats('postgres', `${this.db.url.replace(/\/\/[^@/]*@/, '//')} (schema ${this.db.schema}, version ${this.version}, ${t.conflicts} write conflicts retried)`);
  }



  async close(): Promise<void> {
    clearInterval(this.poller);
    this.stopListening?.();
    await this.chain;
  }
}
