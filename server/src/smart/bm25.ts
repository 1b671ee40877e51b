import { tokenize } from './text';

export type Doc = { id: string; fields: Array<{ text: string; weight: number }> };

/**
 * Okapi BM25 over weighted fields (a tool's name counts more than its
 * description). Built once per catalog change; a query touches only the
 * postings of its terms.
 */
export class Bm25Index {
  private readonly postings = new Map<string, Map<number, number>>();
  private readonly lengths: number[] = [];
  readonly ids: string[] = [];
  private avgLength = 0;

  constructor(docs: Doc[], private readonly k1 = 1.2, private readonly b = 0.75) {
    for (const doc of docs) {
      const n = this.ids.push(doc.id) - 1;
      let length = 0;
      for (const f of doc.fields) {
        for (const term of tokenize(f.text)) {
          let p = this.postings.get(term);
          if (!p) this.postings.set(term, (p = new Map()));
          p.set(n, (p.get(n) ?? 0) + f.weight);
          length += f.weight;
        }
      }
      this.lengths.push(length);
    }
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length);
  }

  get size(): number {
    return this.ids.length;
  }

  search(query: string, limit: number, allow?: (id: string) => boolean): Array<{ id: string; score: number }> {
    const scores = new Map<number, number>();
    const N = this.ids.length;
    for (const term of new Set(tokenize(query))) {
      const p = this.postings.get(term);
      if (!p) continue;
      const idf = Math.log(1 + (N - p.size + 0.5) / (p.size + 0.5));
      for (const [doc, tf] of p) {
        const norm = tf + this.k1 * (1 - this.b + (this.b * this.lengths[doc]!) / this.avgLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * (tf * (this.k1 + 1))) / norm);
      }
    }
    const out: Array<{ id: string; score: number }> = [];
    for (const [doc, score] of scores) {
      const id = this.ids[doc]!;
      if (!allow || allow(id)) out.push({ id, score });
    }
    return out.sort((a, b) => b.score - a.score).slice(0, limit);
  }
}
