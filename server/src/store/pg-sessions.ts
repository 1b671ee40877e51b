import type { SessionRecord, SessionRecords } from '../mcp/session-records';
import type { PgListener } from '../events/pg-listener';
import { table, type Database } from './pg-schema';

type Row = { id: string; scope: string; smart: boolean; username: string | null; protocol_version: string | null; init: SessionRecord['init']; created_at: Date; last_seen: Date };

/**
 * Session records shared by the replicas: any replica can take over an
 * agent's session. An ended session is announced so every replica holding
 * a copy closes it. One write per session opened or ended, and one batched
 * update every few seconds for the sessions in use: none per request.
 */
export class PgSessions implements SessionRecords {
  private readonly handlers = new Set<(id: string) => void>();
  private stop?: () => void;

  constructor(
    private readonly db: Database,
    private readonly listener: PgListener,
    private readonly ttlMs: number,
    private readonly replica: string,
  ) {}

  async start(): Promise<void> {
    this.stop = await this.listener.listen('session_end', (id) => {
      for (const h of this.handlers) h(id);
    });
  }

  async save(r: SessionRecord): Promise<void> {
    await this.db.pool.query(
      `INSERT INTO ${table(this.db, 'sessions')} (id, kind, scope, smart, username, protocol_version, init, created_by, created_at, last_seen)
       VALUES ($1, 'streamable', $2, $3, $4, $5, $6, $7, to_timestamp($8 / 1000.0), now()) ON CONFLICT (id) DO NOTHING`,
      [r.id, r.scope, r.smart, r.username, r.protocolVersion, JSON.stringify(r.init), this.replica, r.createdAt],
    );
  }

  async find(id: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.db.pool.query<Row>(
      `SELECT id, scope, smart, username, protocol_version, init, created_at, last_seen FROM ${table(this.db, 'sessions')}
       WHERE id = $1 AND last_seen > now() - make_interval(secs => $2)`,
      [id, this.ttlMs / 1000],
    );
    const r = rows[0];
    if (!r) return undefined;
    return { id: r.id, scope: r.scope, smart: r.smart, username: r.username, protocolVersion: r.protocol_version, init: r.init, createdAt: r.created_at.getTime(), lastSeen: r.last_seen.getTime() };
  }

  remove(id: string): void {
    void this.db.pool
      .query(`DELETE FROM ${table(this.db, 'sessions')} WHERE id = $1`, [id])
      .then(() => this.listener.notify('session_end', id))
      .catch(() => undefined);
  }

  touch(ids: string[]): void {
    if (ids.length === 0) return;
    void this.db.pool.query(`UPDATE ${table(this.db, 'sessions')} SET last_seen = now() WHERE id = ANY($1)`, [ids]).catch(() => undefined);
  }

  onRemoved(handler: (id: string) => void): void {
    this.handlers.add(handler);
  }

  /** Drops records idle past the time-to-live (the leader's retention job). */
  async expire(): Promise<number> {
    const r = await this.db.pool.query(`DELETE FROM ${table(this.db, 'sessions')} WHERE last_seen < now() - make_interval(secs => $1)`, [this.ttlMs / 1000]);
    return r.rowCount ?? 0;
  }

  async close(): Promise<void> {
    this.stop?.();
  }
}
