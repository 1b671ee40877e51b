/**
 * Retrieval quality of smart routing on 1,041 real tools (harvested from 35
 * public MCP servers on npm, bench/fixtures/tool-catalogue.json) and 109
 * labelled queries: recall@1, recall@5 and MRR for lexical, vector and hybrid.
 *
 * No embedding model can be fetched on this machine, so "vector" here is a
 * character-trigram hashing embedder (the hashing trick: no weights needed);
 * a real provider plugs in through the same OpenAI-compatible path.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Bm25Index } from '../server/src/smart/bm25';
import { dot, unit } from '../server/src/smart/embeddings';
import { docOf, fuseRanks } from '../server/src/smart/service';
import { assignNames } from '../server/src/mcp/naming';

type Catalogue = Record<string, Array<{ name: string; description: string; params: string[] }>>;
type Query = { q: string; server: string; tool: string };

const here = path.dirname(new URL(import.meta.url).pathname);
const DIM = 1024;

/** Hashed character trigrams of the words, TF weighted: a weights-free text embedding. */
export function hashEmbed(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const word of text.toLowerCase().replace(/([a-z])([A-Z])/g, '$1 $2').split(/[^a-z0-9]+/).filter(Boolean)) {
    const w = ` ${word} `;
    for (let i = 0; i + 3 <= w.length; i++) {
      const h = createHash('md5').update(w.slice(i, i + 3)).digest();
      v[h.readUInt32LE(0) % DIM]! += h[4]! & 1 ? 1 : -1;
    }
  }
  return unit(v);
}

export function retrieval(): string[] {
  const catalogue = JSON.parse(readFileSync(path.join(here, 'fixtures/tool-catalogue.json'), 'utf8')) as Catalogue;
  const queries = JSON.parse(readFileSync(path.join(here, 'fixtures/queries.json'), 'utf8')) as Query[];
  const pairs = Object.entries(catalogue).flatMap(([server, tools]) => tools.map((t) => [server, t.name] as [string, string]));
  const names = assignNames(pairs, '-');
  const docs = Object.entries(catalogue).flatMap(([server, tools]) =>
    tools.map((t) =>
      docOf(
        {
          name: names.get(server)!.get(t.name)!,
          original: t.name,
          server,
          tool: { name: t.name, description: t.description, inputSchema: { type: 'object', properties: Object.fromEntries(t.params.map((p) => [p, {}])) } },
        },
        undefined,
      ),
    ),
  );
  const index = new Bm25Index(docs);
  const vectors = docs.map((d) => hashEmbed(d.fields.map((f) => f.text).join(' ')));
  const modes = {
    lexical: (q: string) => index.search(q, 50),
    vector: (q: string) => {
      const qv = hashEmbed(q);
      return vectors.map((v, i) => ({ id: docs[i]!.id, score: dot(qv, v) })).sort((a, b) => b.score - a.score).slice(0, 50);
    },
    hybrid: (q: string) => fuseRanks(modes.lexical(q), modes.vector(q)),
  };
  const lines = [`${docs.length} tools from ${Object.keys(catalogue).length} servers, ${queries.length} labelled queries`];
  for (const [mode, search] of Object.entries(modes)) {
    let r1 = 0;
    let r5 = 0;
    let mrr = 0;
    for (const q of queries) {
      const want = names.get(q.server)!.get(q.tool)!;
      const rank = search(q.q).findIndex((x) => x.id === want);
      if (rank === 0) r1++;
      if (rank >= 0 && rank < 5) r5++;
      if (rank >= 0) mrr += 1 / (rank + 1);
    }
    const n = queries.length;
    lines.push(`${mode.padEnd(8)} recall@1 ${(r1 / n).toFixed(3)}  recall@5 ${(r5 / n).toFixed(3)}  MRR ${(mrr / n).toFixed(3)}`);
  }
  lines.push('(target: hybrid recall@5 >= 0.9)');
  return lines;
}
