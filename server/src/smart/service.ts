import { createHash } from 'node:crypto';
import path from 'node:path';
import { lazyPool } from '../store/pg-pool';
import type { Store } from '../store/store';
import type { EventBus } from '../events/bus';
import type { Catalog, ExposedTool } from '../mcp/catalog';
import { Bm25Index, type Doc } from './bm25';
import { EmbeddingClient, dot, unit } from './embeddings';
import { FileVectorStore, SqlVectorStore, type VectorStore } from './vector-store';

export type SearchHit = { name: string; server: string; tool: string; score: number; description: string };

type Props = Record<string, { description?: string }>;

/** A tool as a search document: its names weigh most, then its server, description and parameters. */
export function docOf(t: Pick<ExposedTool, 'name' | 'original' | 'server' | 'tool'>, serverDescription: string | undefined): Doc {
  const props = ((t.tool.inputSchema as { properties?: Props })?.properties ?? {}) as Props;
  return {
    id: t.name,
    fields: [
      { text: `${t.name} ${t.original} ${t.tool.title ?? ''}`, weight: 3 },
      { text: t.tool.description ?? '', weight: 1 },
      { text: Object.entries(props).map(([k, v]) => `${k} ${v.description ?? ''}`).join(' '), weight: 1 },
      { text: `${t.server} ${serverDescription ?? ''}`, weight: 1.5 },
    ],
  };
}

const textOf = (d: Doc) => d.fields.map((f) => f.text).join('\n');
const hash = (s: string) => createHash('sha1').update(s).digest('hex');

/**
 * The tool index behind smart routing: BM25 over names, descriptions and
 * parameters (no external service needed), plus embeddings from any
 * OpenAI-compatible API when one is configured, fused by reciprocal rank.
 * Vectors are kept by content hash (unchanged tools are never re-embedded)
 * in memory and in `<data folder>/embeddings.json`. Indexing runs in the
 * background and never blocks a tool call.
 */
export class SmartService {
  private lexical = new Bm25Index([]);
  private tools = new Map<string, ExposedTool>();
  private hashes = new Map<string, string>();
  private vectors = new Map<string, number[]>();
  /** Unit-length copies for in-process scoring, made once per vector. */
  private units = new Map<string, Float32Array>();
  private vectorModel = '';
  private vectorStore?: { key: string; store: VectorStore; close?: () => Promise<void> };
  private timer?: NodeJS.Timeout;
  private embedding?: Promise<void>;
  private lastError: string | null = null;
  private off?: () => void;
  private readonly cacheFile: string;

  constructor(
    private readonly store: Store,
    private readonly catalog: Catalog,
    private readonly bus: EventBus,
    dataDir: string,
  ) {
    this.cacheFile = path.join(dataDir, 'embeddings.json');
  }

  private config() {
    return this.store.get().systemConfig.smartRouting ?? {};
  }

  enabled(): boolean {
    return this.config().enabled === true;
  }

  private client(): EmbeddingClient | null {
    const c = this.config();
    if (!c.providerApiBaseUrl) return null;
    return new EmbeddingClient({ baseUrl: c.providerApiBaseUrl, apiKey: c.providerApiKey, model: c.providerApiEmbeddingModel || 'text-embedding-3-small' });
  }

  /** The file in the data folder, or PostgreSQL when `dbUrl` is set; switched when it changes. */
  private storeFor(): VectorStore {
    const dbUrl = this.config().dbUrl || '';
    if (this.vectorStore?.key !== dbUrl) {
      void this.vectorStore?.close?.();
      if (dbUrl) {
        const pool = lazyPool({ connectionString: dbUrl, max: 2, connectionTimeoutMillis: 5000 });
        this.vectorStore = { key: dbUrl, store: new SqlVectorStore(pool), close: () => pool.end() };
      } else {
        this.vectorStore = { key: '', store: new FileVectorStore(this.cacheFile) };
      }
      this.vectorModel = '';
    }
    return this.vectorStore.store;
  }

  async init(): Promise<void> {
    this.off = this.bus.subscribe('catalog.changed', () => this.schedule());
    this.schedule();
  }

  private dirty = true;

  // Changes come in bursts: rebuild at most every 100 ms, and at once when a search needs it.
  // With smart routing off, nothing is built until something asks (a search, the status).
  private schedule(): void {
    this.dirty = true;
    if (this.timer || !this.enabled()) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.dirty) this.rebuild();
    }, 100);
    this.timer.unref();
  }

  /** Rebuilds the lexical index from the enabled catalog and starts embedding what changed. */
  rebuild(): void {
    this.dirty = false;
    const scope = this.catalog.scope('all');
    const servers = this.store.get().mcpServers;
    const tools = scope?.tools ?? [];
    const docs = tools.map((t) => docOf(t, servers[t.server]?.description));
    this.lexical = new Bm25Index(docs);
    this.tools = new Map(tools.map((t) => [t.name, t]));
    this.hashes = new Map(docs.map((d) => [d.id, hash(textOf(d))]));
    if (this.enabled()) this.embedding ??= this.embedMissing(docs).finally(() => (this.embedding = undefined));
  }

  private async embedMissing(docs: Doc[]): Promise<void> {
    const client = this.client();
    if (!client) return;
    try {
      const store = this.storeFor();
      if (this.vectorModel !== client.model) {
        this.vectors = await store.load(client.model);
        this.units.clear();
        this.vectorModel = client.model;
      }
      const missing = docs.filter((d) => !this.vectors.has(this.hashes.get(d.id)!));
      const added: Array<[string, number[]]> = [];
      for (let i = 0; i < missing.length; i += 64) {
        const batch = missing.slice(i, i + 64);
        const vecs = await client.embed(batch.map(textOf));
        batch.forEach((d, j) => {
          this.vectors.set(this.hashes.get(d.id)!, vecs[j]!);
          added.push([this.hashes.get(d.id)!, vecs[j]!]);
        });
      }
      if (added.length) await store.save(client.model, added, new Set(this.hashes.values()));
      this.lastError = null;
    } catch (err) {
      this.lastError = (err as Error).message;
    }
  }

  /** Waits for background embedding (tests and the console's "reindex"). */
  async settle(): Promise<void> {
    this.rebuild();
    await this.embedding;
  }

  status() {
    if (this.dirty) this.rebuild();
    const embedded = [...this.hashes.values()].filter((h) => this.vectors.has(h)).length;
    return {
      enabled: this.enabled(),
      tools: this.lexical.size,
      embedded,
      mode: this.client() && embedded > 0 ? 'hybrid' : 'lexical',
      storage: this.vectorStore?.store.kind ?? (this.config().dbUrl ? 'postgres' : 'file'),
      provider: this.config().providerApiBaseUrl || null,
      model: this.client()?.model ?? null,
      indexing: Boolean(this.embedding),
      lastError: this.lastError,
    };
  }

  /** Best tools for a query among those `allow` admits (the caller's scope), best first. */
  async search(query: string, limit: number, allow: (name: string) => boolean): Promise<SearchHit[]> {
    if (this.dirty) this.rebuild();
    const lexical = this.lexical.search(query, 50, allow);
    let ranked: Array<{ id: string; score: number }> = lexical;
    const client = this.client();
    if (client && this.vectors.size > 0) {
      const q = await client.embed([query], { signal: AbortSignal.timeout(3000), retries: 1 }).then((v) => v[0]).catch(() => undefined);
      if (q) {
        const vector = await this.nearest(q, allow);
        ranked = fuseRanks(lexical, vector);
      }
    }
    return ranked.slice(0, limit).flatMap(({ id, score }) => {
      const t = this.tools.get(id);
      return t ? [{ name: t.name, server: t.server, tool: t.original, score: Number(score.toFixed(4)), description: (t.tool.description ?? '').slice(0, 200) }] : [];
    });
  }

  /** Nearest tools by vector: in the database with pgvector, else scored here. */
  private async nearest(q: number[], allow: (id: string) => boolean): Promise<Array<{ id: string; score: number }>> {
    const store = this.vectorStore?.store;
    if (store?.nearest) {
      const byHash = new Map<string, string[]>();
      for (const [id, h] of this.hashes) byHash.set(h, [...(byHash.get(h) ?? []), id]);
      const hits = await store.nearest(this.vectorModel, q, 200).catch(() => null);
      if (hits) return hits.flatMap((x) => (byHash.get(x.hash) ?? []).filter(allow).map((id) => ({ id, score: x.score }))).slice(0, 50);
    }
    const qu = unit(q);
    const scored: Array<{ id: string; score: number }> = [];
    for (const id of this.tools.keys()) {
      if (!allow(id)) continue;
      const h = this.hashes.get(id)!;
      let u = this.units.get(h);
      if (!u) {
        const v = this.vectors.get(h);
        if (!v) continue;
        this.units.set(h, (u = unit(v)));
      }
      scored.push({ id, score: dot(qu, u) });
    }
    return scored.sort((a, b) => b.score - a.score).slice(0, 50);
  }

  stop(): void {
    void this.vectorStore?.close?.();
    this.off?.();
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Reciprocal rank fusion: robust to the two rankings' different score scales. */
export function fuseRanks(...rankings: Array<Array<{ id: string }>>): Array<{ id: string; score: number }> {
  const fused = new Map<string, number>();
  for (const ranking of rankings) ranking.forEach((x, i) => fused.set(x.id, (fused.get(x.id) ?? 0) + 1 / (60 + i)));
  return [...fused].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
