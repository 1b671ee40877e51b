import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';

/** What both `pg` and PGlite offer: enough to keep vectors in PostgreSQL. */
export type SqlClient = { query: (sql: string, params?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }> };

/** Where tool embeddings live, keyed by content hash and model. */
export interface VectorStore {
  readonly kind: string;
  load(model: string): Promise<Map<string, number[]>>;
  save(model: string, entries: Array<[string, number[]]>, live: Set<string>): Promise<void>;
  /** Nearest vectors computed by the store itself (pgvector); undefined means score in process. */
  nearest?(model: string, query: number[], k: number): Promise<Array<{ hash: string; score: number }>>;
  close?(): Promise<void>;
}

/** The default: a JSON file in the data folder. */
export class FileVectorStore implements VectorStore {
  readonly kind = 'file';
  private all = new Map<string, number[]>();
  private model = '';

  constructor(private readonly file: string) {}

  async load(model: string): Promise<Map<string, number[]>> {
    try {
      const saved = JSON.parse(await readFile(this.file, 'utf8')) as { model: string; vectors: Record<string, number[]> };
      if (saved.model === model) (this.all = new Map(Object.entries(saved.vectors))), (this.model = model);
    } catch {
      // nothing saved yet
    }
    return new Map(this.model === model ? this.all : []);
  }

  async save(model: string, entries: Array<[string, number[]]>, live: Set<string>): Promise<void> {
    if (this.model !== model) (this.all = new Map()), (this.model = model);
    for (const [h, v] of entries) this.all.set(h, v);
    for (const h of this.all.keys()) if (!live.has(h)) this.all.delete(h);
    await writeFileAtomic(this.file, JSON.stringify({ model, vectors: Object.fromEntries(this.all) }));
  }
}

/**
 * PostgreSQL (`smartRouting.dbUrl`): the pgvector extension when the database
 * has it (nearest neighbours computed there), plain `real[]` columns scored
 * in process when it does not.
 */
export class SqlVectorStore implements VectorStore {
  kind = 'postgres';
  private pgvector = false;
  private ready?: Promise<void>;

  constructor(private readonly db: SqlClient, private readonly table = 'hub_tool_embeddings') {}

  private init(): Promise<void> {
    this.ready ??= (async () => {
      try {
        await this.db.query('CREATE EXTENSION IF NOT EXISTS vector');
        this.pgvector = true;
      } catch {
        this.pgvector = false;
      }
      const column = this.pgvector ? 'vector' : 'real[]';
      await this.db.query(`CREATE TABLE IF NOT EXISTS ${this.table} (hash text NOT NULL, model text NOT NULL, embedding ${column} NOT NULL, PRIMARY KEY (hash, model))`);
      this.kind = this.pgvector ? 'pgvector' : 'postgres';
    })();
    return this.ready;
  }

  private encode(v: number[]): unknown {
    return this.pgvector ? `[${v.join(',')}]` : v;
  }

  private decode(v: unknown): number[] {
    if (Array.isArray(v)) return v.map(Number);
    return String(v).replace(/[[\]]/g, '').split(',').map(Number);
  }

  async load(model: string): Promise<Map<string, number[]>> {
    await this.init();
    const { rows } = await this.db.query(`SELECT hash, embedding FROM ${this.table} WHERE model = $1`, [model]);
    return new Map(rows.map((r) => [String(r.hash), this.decode(r.embedding)]));
  }

  async save(model: string, entries: Array<[string, number[]]>, live: Set<string>): Promise<void> {
    await this.init();
    for (const [hash, v] of entries) {
      await this.db.query(
        `INSERT INTO ${this.table} (hash, model, embedding) VALUES ($1, $2, $3) ON CONFLICT (hash, model) DO UPDATE SET embedding = EXCLUDED.embedding`,
        [hash, model, this.encode(v)],
      );
    }
    await this.db.query(`DELETE FROM ${this.table} WHERE model = $1 AND NOT (hash = ANY($2))`, [model, [...live]]);
  }

  get nearest(): VectorStore['nearest'] {
    if (!this.pgvector) return undefined;
    return async (model, query, k) => {
      const { rows } = await this.db.query(
        `SELECT hash, 1 - (embedding <=> $1::vector) AS score FROM ${this.table} WHERE model = $2 ORDER BY embedding <=> $1::vector LIMIT $3`,
        [`[${query.join(',')}]`, model, k],
      );
      return rows.map((r) => ({ hash: String(r.hash), score: Number(r.score) }));
    };
  }
}
