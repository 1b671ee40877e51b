import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import type { SessionRecord, SessionRecords } from '../mcp/session-records';

/**
 * Session records of a single Hub in `<data folder>/sessions.json`, so a
 * restart does not end agents' sessions. Writes are coalesced (one in
 * flight, 50 ms apart at most) and atomic; records idle past the
 * time-to-live are dropped.
 */
export class SessionFile implements SessionRecords {
  private readonly records = new Map<string, SessionRecord>();
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private readonly ttlMs: number,
  ) {}

  static async open(file: string, ttlMs: number): Promise<SessionFile> {
    const store = new SessionFile(file, ttlMs);
    try {
      const list = JSON.parse(await readFile(file, 'utf8')) as SessionRecord[];
      const now = Date.now();
      for (const r of Array.isArray(list) ? list : []) {
        if (r && typeof r.id === 'string' && now - r.lastSeen <= ttlMs) store.records.set(r.id, r);
      }
    } catch {
      // no file yet, or an unreadable one: start with no sessions
    }
    return store;
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const text = JSON.stringify([...this.records.values()]);
      this.writing = this.writing.then(() => writeFileAtomic(this.file, text, { mode: 0o600 })).catch(() => undefined);
    }, 50);
  }

  async save(record: SessionRecord): Promise<void> {
    this.records.set(record.id, record);
    this.schedule();
  }

  async find(id: string): Promise<SessionRecord | undefined> {
    const r = this.records.get(id);
    if (r && Date.now() - r.lastSeen > this.ttlMs) {
      this.remove(id);
      return undefined;
    }
    return r;
  }

  remove(id: string): void {
    if (this.records.delete(id)) this.schedule();
  }

  touch(ids: string[]): void {
    const now = Date.now();
    for (const id of ids) {
      const r = this.records.get(id);
      if (r) r.lastSeen = now;
    }
    if (ids.length) this.schedule();
  }

  onRemoved(): void {}

  async close(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      const text = JSON.stringify([...this.records.values()]);
      this.writing = this.writing.then(() => writeFileAtomic(this.file, text, { mode: 0o600 })).catch(() => undefined);
    }
    await this.writing;
  }
}
