import { z } from 'zod';
import { catalogEntry, type CatalogEntry } from '@hub/contract';
import type { Store } from '../store/store';
import shipped from './servers.json' with { type: 'json' };

export type CatalogItem = CatalogEntry & { source: string };

const MAX_BYTES = 1024 * 1024;
const FRESH_MS = 5 * 60_000;
/** A catalogue is a list of entries, or MCPHub's market form (`{ servers: {...} }` or `{ servers: [...] }`). */
const catalogDocument = z.union([z.array(z.unknown()), z.object({ servers: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]) })]);

/**
 * Installable servers: the catalogue shipped with Hub and those at the URLs of
 * `systemConfig.catalog.urls` (fetched at most every 5 minutes, 1 MB and 5 s at
 * most each; entries that do not parse are left out). Searching matches
 * names, descriptions and tags.
 */
export class CatalogService {
  private readonly remote = new Map<string, { at: number; items: CatalogItem[]; error?: string }>();

  constructor(private readonly store: Store) {}

  async list(query = ''): Promise<{ items: CatalogItem[]; errors: Array<{ url: string; error: string }> }> {
    const builtIn = parseEntries(shipped, 'hub');
    const urls = this.store.get().systemConfig.catalog?.urls ?? [];
    const fetched = await Promise.all(urls.map((u) => this.fetchOne(u)));
    const q = query.trim().toLowerCase();
    const items = [...builtIn, ...fetched.flatMap((f) => f.items)].filter(
      (i) => !q || i.name.toLowerCase().includes(q) || i.description.toLowerCase().includes(q) || i.tags.some((t) => t.toLowerCase().includes(q)),
    );
    return { items, errors: fetched.flatMap((f, i) => (f.error ? [{ url: urls[i]!, error: f.error }] : [])) };
  }

  private async fetchOne(url: string): Promise<{ items: CatalogItem[]; error?: string }> {
    const hit = this.remote.get(url);
    if (hit && Date.now() - hit.at < FRESH_MS) return hit;
    let result: { items: CatalogItem[]; error?: string };
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000), redirect: 'error', headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const text = await res.text();
      if (text.length > MAX_BYTES) throw new Error('larger than 1 MB');
      const doc = catalogDocument.parse(JSON.parse(text));
      const raw = Array.isArray(doc) ? doc : Array.isArray(doc.servers) ? doc.servers : Object.entries(doc.servers).map(([name, v]) => ({ name, ...(v as object) }));
      result = { items: parseEntries(raw, url) };
    } catch (err) {
      result = { items: hit?.items ?? [], error: (err as Error).message.slice(0, 200) };
    }
    this.remote.set(url, { at: Date.now(), ...result });
    return result;
  }
}

function parseEntries(raw: unknown, source: string): CatalogItem[] {
  const list = Array.isArray(raw) ? raw : [];
  return list.flatMap((e) => {
    const parsed = catalogEntry.safeParse(e);
    return parsed.success ? [{ ...parsed.data, source }] : [];
  });
}
