/** An OpenAI-compatible `/embeddings` API: batched, retried with backoff on 429 and 5xx. */
export class EmbeddingClient {
  constructor(private readonly cfg: { baseUrl: string; apiKey?: string; model: string }) {}

  get model(): string {
    return this.cfg.model;
  }

  async embed(input: string[], opts: { signal?: AbortSignal; retries?: number } = {}): Promise<number[][]> {
    const url = `${this.cfg.baseUrl.replace(/\/$/, '')}/embeddings`;
    const retries = opts.retries ?? 5;
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.cfg.model, input }),
        signal: opts.signal ?? AbortSignal.timeout(30_000),
      });
      if (res.ok) {
        const body = (await res.json()) as { data: Array<{ index: number; embedding: number[] }> };
        return [...body.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      }
      if ((res.status === 429 || res.status >= 500) && attempt < retries) {
        const after = Number(res.headers.get('retry-after'));
        await new Promise((r) => setTimeout(r, Number.isFinite(after) && after > 0 ? after * 1000 : 250 * 2 ** attempt));
        continue;
      }
      throw new Error(`embeddings API answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    }
  }
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** A unit-length copy, so similarity is a plain dot product (no norms per comparison). */
export function unit(v: ArrayLike<number>): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const out = new Float32Array(v.length);
  const inv = n ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
