import { StoreBase } from './write-timing';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { settingsFileSchema, type SettingsFile } from '@hub/contract';
import { AtomicJsonFile } from './atomic-json-file';
import { migrateLegacyKeys } from './migrate';
import { StoreLoadError, type Store, type StoreStats } from './store';
import { withSafeMaps } from './safe-maps';

type Waiter = { resolve: () => void; reject: (err: unknown) => void };

function describeIssues(file: string, error: import('zod').ZodError): string {
  const issues = error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return `Settings file ${file} is invalid: ${issues.join('; ')}`;
}

/**
 * The one owner of the settings file. Changes apply in order in memory;
 * disk writes are serialized and coalesced (at most one in flight), and a
 * failed write rolls memory back to what is on disk and rejects every change
 * not yet durable, so nothing unacknowledged is reported as saved.
 */
export class LowdbStore extends StoreBase implements Store {
  private state: SettingsFile;
  private durable: SettingsFile;
  private waiters: Waiter[] = [];
  private writing: Promise<void> | null = null;

  private constructor(
    private readonly db: Low<unknown>,
    initial: SettingsFile,
    private readonly file: string,
  ) {
    super();
    this.state = initial;
    this.durable = initial;
  }

  static async open(file: string): Promise<LowdbStore> {
    await mkdir(path.dirname(file), { recursive: true });
    const db = new Low<unknown>(new AtomicJsonFile(file), null);
    await db.read();
    const isNew = db.data == null;
    const parsed = settingsFileSchema.safeParse(migrateLegacyKeys(db.data ?? {}));
    if (!parsed.success) throw new StoreLoadError(describeIssues(file, parsed.error));
    const store = new LowdbStore(db, withSafeMaps(parsed.data), file);
    if (isNew) await store.update(() => undefined);
    return store;
  }

  get(): Readonly<SettingsFile> {
    return this.state;
  }

  update<T>(change: (draft: SettingsFile) => T): Promise<T> {
    const draft = withSafeMaps(structuredClone(this.state));
    const result = change(draft);
    const checked = settingsFileSchema.safeParse(draft);
    if (!checked.success) return Promise.reject(new Error(describeIssues('(in memory)', checked.error)));
    this.state = withSafeMaps(checked.data);
    this.emit();
    return new Promise<T>((resolve, reject) => {
      this.waiters.push({ resolve: () => resolve(result), reject });
      this.writing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.waiters.length > 0) {
      const batch = this.waiters;
      this.waiters = [];
      const snapshot = this.state;
      const started = performance.now();
      try {
        this.db.data = snapshot;
        await this.db.write();
        this.timing.note(performance.now() - started);
        this.durable = snapshot;
        for (const w of batch) w.resolve();
      } catch (err) {
        this.timing.failed++;
        const pending = [...batch, ...this.waiters];
        this.waiters = [];
        this.state = this.durable;
        this.emit();
        for (const w of pending) w.reject(err);
      }
    }
    this.writing = null;
  }


  stats(): StoreStats {
    return this.timing.stats('lowdb', this.file);
  }



  async close(): Promise<void> {
    await this.writing;
  }
}
