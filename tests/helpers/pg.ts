import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's PostgreSQL (CI starts it); each test works in a schema of its own. */
export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const freshSchema = () => `t_${randomBytes(6).toString('hex')}`;

export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export const dropSchema = (schema: string) => sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
