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

/**
 * The audit trail, one JSON line per event in `<data folder>/audit.log`.
 * Appends are batched off the request path; entries older than the
 * retention are dropped at start.
 */
export class AuditService {
  private buffer: string[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly file: string,
    private readonly store: Store,
    private readonly retentionDays = 90,
  ) {}

  async init(): Promise<void> {
    const all = await this.read();
    const cutoff = Date.now() - this.retentionDays * 86_400_000;
    const kept = all.filter((e) => Date.parse(e.timestamp) >= cutoff);
    if (kept.length !== all.length) await writeFile(this.file, kept.map((e) => JSON.stringify(e) + '\n').join(''));
  }

  record(entry: Omit<AuditEntry, 'timestamp'>): void {
    const cfg = this.store.get().systemConfig.audit;
    if (cfg?.enabled === false) return;
    if (cfg?.events && !cfg.events.includes(entry.event)) return;
    this.buffer.push(JSON.stringify({ timestamp: new Date().toISOString(), ...entry }) + '\n');
    this.timer ??= setTimeout(() => void this.flush(), 200);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.buffer.join('');
    this.buffer = [];
    if (lines) this.flushing = this.flushing.then(() => appendFile(this.file, lines, { mode: 0o600 })).catch(() => undefined);
    await this.flushing;
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

  async query(filter: { startDate?: Date; endDate?: Date; event?: string; actor?: string; limit: number }): Promise<AuditEntry[]> {
    await this.flush();
    const out = (await this.read()).filter((e) => {
      const t = Date.parse(e.timestamp);
      return (!filter.startDate || t >= filter.startDate.getTime()) && (!filter.endDate || t <= filter.endDate.getTime()) &&
        (!filter.event || e.event === filter.event) && (!filter.actor || e.actor === filter.actor);
    });
    return out.slice(-filter.limit).reverse();
  }
}
