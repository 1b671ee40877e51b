import type pg from 'pg';

export type LazyPool = {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  end(): Promise<void>;
};

/**
 * A PostgreSQL pool made on first use: installations that never name a
 * database never load the driver (it costs several MB of memory).
 */
export function lazyPool(config: pg.PoolConfig): LazyPool {
  let pool: Promise<pg.Pool> | undefined;
  const get = () =>
    (pool ??= import('pg').then(({ default: driver }) => {
      const p = new driver.Pool(config);
      p.on('error', () => undefined); // an idle client's error must not crash Hub; the next query reports it
      return p;
    }));
  return {
    query: async (text, values) => (await get()).query(text, values),
    async end() {
      if (pool) await (await pool).end();
    },
  };
}
