import { appendFile, readFile, writeFile } from 'node:fs/promises';
import type { Store } from '../store/store';

export const auditEvents = ['login', 'logout', 'password_change', 'role_change', 'permission_change', 'server_access', 'config_change'] as const;
export type AuditEvent = (typeof auditEvents)[number];

export type AuditEntry = {
  timestamp: string;
  event: AuditEvent;
  /** Who: a username, `bearer-key:<name>`, or null when unknown (a failed login names the attempted user in details). */
  actor: string | null;
  ip?: string;
  success: boolean;
  target?: string;
  details?: Record<string, unknown>;
};

export type AuditFilter = { startDate?: Date; endDate?: Date; event?: string; actor?: string; limit: number };

/** Where audit entries are kept: a file of a single Hub, or PostgreSQL shared by replicas. */
export interface AuditSink {
  /** Drops entries older than `retentionDays`. */
  prune(retentionDays: number): Promise<void>;
  append(entries: AuditEntry[]): Promise<void>;
  /** Newest first. */
  query(filter: AuditFilter): Promise<AuditEntry[]>;
}

/** One JSON line per event in `<data folder>/audit.log`. */
export class FileAuditSink implements AuditSink {
  constructor(private readonly file: string) {}

  async prune(retentionDays: number): Promise<void> {
    const all = await this.read();
    const cutoff = Date.now() - retentionDays * 86_400_000;
    const kept = all.filter((e) => Date.parse(e.timestamp) >= cutoff);
    if (kept.length !== all.length) await writeFile(this.file, kept.map((e) => JSON.stringify(e) + '\n').join(''), { mode: 0o600 });
  }

  async append(entries: AuditEntry[]): Promise<void> {
    await appendFile(this.file, entries.map((e) => JSON.stringify(e) + '\n').join(''), { mode: 0o600 });
  }

  private async read(): Promise<AuditEntry[]> {
    let text = '';
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return [];
    }
    return text.split('\n').flatMap((line) => {
      try {
        return line ? [JSON.parse(line) as AuditEntry] : [];
      } catch {
        return [];
      }
    });
  }

  async query(filter: AuditFilter): Promise<AuditEntry[]> {
    const out = (await this.read()).filter((e) => {
      const t = Date.parse(e.timestamp);
      return (!filter.startDate || t >= filter.startDate.getTime()) && (!filter.endDate || t <= filter.endDate.getTime()) &&
        (!filter.event || e.event === filter.event) && (!filter.actor || e.actor === filter.actor);
    });
    return out.slice(-filter.limit).reverse();
  }
}

/**
 * The audit trail. Appends are batched off the request path; entries older
 * than the retention are dropped at start (and by the leader's retention job).
 */
export class AuditService {
  private buffer: AuditEntry[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sink: AuditSink,
    private readonly store: Store,
    readonly retentionDays = 90,
  ) {}

  async init(): Promise<void> {
    await this.prune();
  }

  prune(): Promise<void> {
    return this.sink.prune(this.retentionDays);
  }

  record(entry: Omit<AuditEntry, 'timestamp'>): void {
    const cfg = this.store.get().systemConfig.audit;
    if (cfg?.enabled === false) return;
    if (cfg?.events && !cfg.events.includes(entry.event)) return;
    this.buffer.push({ timestamp: new Date().toISOString(), ...entry });
    this.timer ??= setTimeout(() => void this.flush(), 200);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const entries = this.buffer;
    this.buffer = [];
    if (entries.length) this.flushing = this.flushing.then(() => this.sink.append(entries)).catch(() => undefined);
    await this.flushing;
  }

  async query(filter: AuditFilter): Promise<AuditEntry[]> {
    await this.flush();
    return this.sink.query(filter);
  }
}
