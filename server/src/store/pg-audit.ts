import type { AuditEntry, AuditFilter, AuditSink } from '../services/audit';
import { table, type Database } from './pg-schema';

/** The audit trail in PostgreSQL, one trail for every replica. */
export class PgAuditSink implements AuditSink {
  constructor(private readonly db: Database) {}

  async prune(retentionDays: number): Promise<void> {
    await this.db.pool.query(`DELETE FROM ${table(this.db, 'audit')} WHERE at < now() - make_interval(days => $1)`, [retentionDays]);
  }

  async append(entries: AuditEntry[]): Promise<void> {
    await this.db.pool.query(
      `INSERT INTO ${table(this.db, 'audit')} (at, event, actor, entry)
       SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::jsonb[])`,
      [entries.map((e) => e.timestamp), entries.map((e) => e.event), entries.map((e) => e.actor), entries.map((e) => JSON.stringify(e))],
    );
  }

  async query(f: AuditFilter): Promise<AuditEntry[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (sql: string, v: unknown) => (values.push(v), where.push(sql.replace('?', `$${values.length}`)));
    if (f.startDate) add('at >= ?', f.startDate);
    if (f.endDate) add('at <= ?', f.endDate);
    if (f.event) add('event = ?', f.event);
    if (f.actor) add('actor = ?', f.actor);
    values.push(f.limit);
    const { rows } = await this.db.pool.query<{ entry: AuditEntry }>(
      `SELECT entry FROM ${table(this.db, 'audit')} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
    return rows.map((r) => r.entry);
  }
}
