import type { StoreStats } from './store';

/** How a store's writes went, for `GET /api/monitoring/database`: counts, times, the ten slowest. */
export class WriteTiming {
  writes = 0;
  failed = 0;
  conflicts = 0;
  private totalMs = 0;
  private maxMs = 0;
  private last: string | null = null;
  private readonly slowest: Array<{ at: string; ms: number }> = [];

  note(ms: number): void {
    this.writes++;
    this.totalMs += ms;
    this.maxMs = Math.max(this.maxMs, ms);
    this.last = new Date().toISOString();
    this.slowest.push({ at: this.last, ms });
    this.slowest.sort((a, b) => b.ms - a.ms);
    this.slowest.length = Math.min(this.slowest.length, 10);
  }

  stats(kind: string, location: string): StoreStats {
    return {
      kind,
      location,
      writes: this.writes,
      failedWrites: this.failed,
      avgWriteMs: this.writes ? this.totalMs / this.writes : 0,
      maxWriteMs: this.maxMs,
      lastWriteAt: this.last,
      slowestWrites: [...this.slowest],
    };
  }
}

/**
 * What every Store implementation shares: its write timing and the settings'
 * revision counter with the listeners that hear each new one.
 */
export abstract class StoreBase {
  protected readonly timing = new WriteTiming();
  revision = 0;
  private readonly listeners = new Set<(revision: number) => void>();

  protected emit(): void {
    this.revision++;
    for (const l of this.listeners) l(this.revision);
  }

  onChange(listener: (revision: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
