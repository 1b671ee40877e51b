import path from 'node:path';
import type { Config } from '../config';
import { LowdbStore } from '../store/lowdb-store';
import { PgStore } from '../store/pg-store';
import { openDatabase, sharedValue, type Database } from '../store/pg-schema';
import { PgListener } from '../events/pg-listener';
import { PgSessions } from '../store/pg-sessions';
import { SessionFile } from '../store/session-file';
import { PgAuditSink } from '../store/pg-audit';
import { FileAuditSink, type AuditSink } from '../services/audit';
import type { Store } from '../store/store';
import type { SessionRecords } from '../mcp/session-records';
import { AdvisoryLeader, SoleLeader, type Leadership } from './leader';
import { MemoryCounters, PgCounters, SyncedCounters, type Counters } from './counters';

/**
 * Where a Hub keeps what it shares: the data folder of a single Hub (lowdb),
 * or one PostgreSQL database for several replicas (`DATABASE_URL`). Services
 * see only the interfaces; this is the one place that picks.
 */
export type Cluster = {
  replicaId: string;
  store: Store;
  sessions: SessionRecords;
  audit: AuditSink;
  counters: Counters;
  /** Requests per address across replicas (PostgreSQL only; a single Hub counts in memory). */
  requestCounters?: Counters;
  leader: Leadership;
  /** Present with PostgreSQL. */
  db?: Database;
  listener?: PgListener;
  /** Where replicas keep one JWT secret (absent: the data folder). */
  sharedSecret?: (create: () => string) => Promise<string>;
  /** Periodic clean-up, run by the leader only. */
  retention(): Promise<void>;
  close(): Promise<void>;
};

export async function openCluster(config: Config): Promise<Cluster> {
  const ttlMs = config.mcpSessionTtlSeconds * 1000;
  if (!config.database) {
    const sessions = await SessionFile.open(path.join(config.dataDir, 'sessions.json'), ttlMs);
    return {
      replicaId: config.replicaId,
      store: await LowdbStore.open(config.settingsPath),
      sessions,
      audit: new FileAuditSink(path.join(config.dataDir, 'audit.log')),
      counters: new MemoryCounters(),
      leader: new SoleLeader(),
      async retention() {},
      async close() {},
    };
  }
  const db = await openDatabase(config.database.url, config.database.schema, 10, `hub:${config.database.schema}:${config.replicaId}`);
  const listener = new PgListener(db);
  await listener.start();
  const store = await PgStore.open(db, { listener, replica: config.replicaId });
  const sessions = new PgSessions(db, listener, ttlMs, config.replicaId);
  await sessions.start();
  const counters = new PgCounters(db);
  const requestCounters = new SyncedCounters(db);
  const leader = new AdvisoryLeader(db);
  leader.start();
  return {
    replicaId: config.replicaId,
    store,
    sessions,
    audit: new PgAuditSink(db),
    counters,
    requestCounters,
    leader,
    db,
    listener,
    sharedSecret: (create) => sharedValue(db, 'jwt_secret', create),
    async retention() {
      await sessions.expire().catch(() => undefined);
      await counters.expire().catch(() => undefined);
    },
    async close() {
      requestCounters.close();
      await leader.close();
      await listener.close();
      await db.pool.end().catch(() => undefined);
    },
  };
}
