import type pg from 'pg';

/** The PostgreSQL database Hub's replicas share: a pool and the schema its tables live in. */
/** `name`: this process's application_name prefix, so an operator can tell replicas apart in pg_stat_activity. */
export type Database = { pool: pg.Pool; schema: string; url: string; name: string };

/** `"schema".table`, for a schema name the configuration already checked. */
export const table = (db: Pick<Database, 'schema'>, name: string) => `"${db.schema}".${name}`;

/**
 * Each step runs once, in order; the applied count is kept in `meta`. Steps
 * are only ever appended.
 */
const steps: Array<(s: string) => string> = [
  (s) => `
    CREATE TABLE IF NOT EXISTS "${s}".meta (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE IF NOT EXISTS "${s}".settings (
      id int PRIMARY KEY CHECK (id = 1),
      version bigint NOT NULL,
      doc jsonb NOT NULL,
      secrets jsonb NOT NULL DEFAULT '[]',
      updated_at timestamptz NOT NULL DEFAULT now(),
      updated_by text
    );
    CREATE TABLE IF NOT EXISTS "${s}".sessions (
      id text PRIMARY KEY,
      kind text NOT NULL,
      scope text NOT NULL,
      smart boolean NOT NULL DEFAULT false,
      username text,
      protocol_version text,
      init jsonb NOT NULL,
      created_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE IF NOT EXISTS "${s}".logs (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), replica text NOT NULL, entry jsonb NOT NULL);
    CREATE INDEX IF NOT EXISTS logs_at ON "${s}".logs (at);
    CREATE TABLE IF NOT EXISTS "${s}".audit (id bigserial PRIMARY KEY, at timestamptz NOT NULL, event text NOT NULL, actor text, entry jsonb NOT NULL);
    CREATE INDEX IF NOT EXISTS audit_at ON "${s}".audit (at);
    CREATE TABLE IF NOT EXISTS "${s}".counters (key text PRIMARY KEY, count int NOT NULL, until timestamptz NOT NULL);
  `,
];

/**
 * Brings the schema up to date. Replicas starting together queue on an
 * advisory lock held for the transaction, so each step runs exactly once.
 */
export async function migrate(db: Database): Promise<number> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`hub-migrate:${db.schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${db.schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS "${db.schema}".meta (key text PRIMARY KEY, value text NOT NULL)`);
    const { rows } = await client.query<{ value: string }>(`SELECT value FROM "${db.schema}".meta WHERE key = 'schema_version'`);
    const done = rows[0] ? Number(rows[0].value) : 0;
    for (let i = done; i < steps.length; i++) await client.query(steps[i]!(db.schema));
    await client.query(
      `INSERT INTO "${db.schema}".meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [String(steps.length)],
    );
    await client.query('COMMIT');
    return steps.length - done;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Opens the pool (the driver is loaded only here) and migrates. */
export async function openDatabase(url: string, schema: string, max = 10, name = `hub:${schema}`): Promise<Database> {
  const { default: driver } = await import('pg');
  const pool = new driver.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000, application_name: name });
  pool.on('error', () => undefined); // an idle client's error must not crash Hub; the next query reports it
  const db = { pool, schema, url, name };
  await migrate(db);
  return db;
}

/** A value kept in `meta`, made by `create` on first use by any replica (the first writer wins). */
export async function sharedValue(db: Database, key: string, create: () => string): Promise<string> {
  await db.pool.query(`INSERT INTO ${table(db, 'meta')} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, create()]);
  const { rows } = await db.pool.query<{ value: string }>(`SELECT value FROM ${table(db, 'meta')} WHERE key = $1`, [key]);
  return rows[0]!.value;
}
