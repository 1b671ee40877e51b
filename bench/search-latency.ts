/**
 * Search latency of the embedded smart-routing index at 1,000 and 10,000
 * tools: BM25 alone, and BM25 plus an in-process scan of 1,536-dim unit vectors.
 */
import { Bm25Index, type Doc } from '../server/src/smart/bm25';
import { dot, unit } from '../server/src/smart/embeddings';

const verbs = ['get', 'list', 'create', 'update', 'delete', 'search', 'send', 'read', 'write', 'run', 'fetch', 'sync', 'export', 'import', 'watch'];
const nouns = ['issue', 'pull request', 'file', 'message', 'channel', 'user', 'repository', 'branch', 'commit', 'ticket', 'invoice', 'customer', 'event', 'calendar', 'document', 'page', 'table', 'row', 'query', 'metric', 'alert', 'deployment', 'container', 'bucket', 'email', 'contact', 'task', 'project', 'note', 'image'];
const services = ['github', 'gitlab', 'slack', 'jira', 'notion', 'stripe', 'gmail', 'calendar', 'drive', 'postgres', 'sentry', 'datadog', 'kubernetes', 's3', 'linear', 'asana', 'trello', 'figma', 'discord', 'zendesk'];

function catalogue(n: number): Doc[] {
  return Array.from({ length: n }, (_, i) => {
    const v = verbs[i % verbs.length]!;
    const o = nouns[Math.floor(i / verbs.length) % nouns.length]!;
    const s = services[Math.floor(i / (verbs.length * nouns.length)) % services.length]!;
    return {
      id: `${s}-${v}_${o.replace(' ', '_')}_${i}`,
      fields: [
        { text: `${s} ${v} ${o}`, weight: 3 },
        { text: `${v[0]!.toUpperCase()}${v.slice(1)} a ${o} in ${s}, with filters for owner, state and date.`, weight: 1 },
        { text: 'owner state since until limit', weight: 1 },
      ],
    };
  });
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((p / 100) * xs.length)]!;

export function searchLatency(): string[] {
  const lines: string[] = [];
  const queries = Array.from({ length: 500 }, (_, i) => `${verbs[(i * 7) % verbs.length]} ${nouns[(i * 3) % nouns.length]} ${services[i % services.length]}`);
  for (const n of [1000, 10_000]) {
    const docs = catalogue(n);
    const t0 = performance.now();
    const index = new Bm25Index(docs);
    const buildMs = performance.now() - t0;
    // 1,536 dimensions, as OpenAI's text-embedding-3-small gives; stored unit-length as Hub does.
    const vectors = docs.map(() => unit(Array.from({ length: 1536 }, () => Math.random() - 0.5)));
    const lex: number[] = [];
    const hyb: number[] = [];
    for (const q of queries) {
      let s = performance.now();
      index.search(q, 10);
      lex.push(performance.now() - s);
      s = performance.now();
      const qv = unit(vectors[0]!);
      index.search(q, 50);
      const scored = vectors.map((v, i) => ({ i, score: dot(qv, v) })).sort((a, b) => b.score - a.score).slice(0, 50);
      void scored;
      hyb.push(performance.now() - s);
    }
    lines.push(`${n} tools: index built in ${buildMs.toFixed(0)} ms; lexical p50 ${pct(lex, 50).toFixed(3)} ms p99 ${pct(lex, 99).toFixed(3)} ms; lexical + vector scan p50 ${pct(hyb, 50).toFixed(3)} ms p99 ${pct(hyb, 99).toFixed(3)} ms (target p99 < 10 ms embedded)`);
  }
  return lines;
}
