import type { SettingsFile } from '@hub/contract';

/**
 * The state behind every service. Implementations: lowdb on the settings file
 * (default); a database-backed one can be swapped in for several replicas.
 */
export interface Store {
  /** The current state. Treat as read-only: it is shared and replaced, never mutated in place. */
  get(): Readonly<SettingsFile>;
  /**
   * Applies `change` to a private copy; if it throws, nothing changes. The new
   * state is visible at once and the promise resolves once it is durable.
   */
  update<T>(change: (draft: SettingsFile) => T): Promise<T>;
  /** Called after each change of the state, whoever made it. */
  onChange(listener: (revision: number) => void): () => void;
  readonly revision: number;
  /** Write timings, for monitoring. */
  stats(): StoreStats;
  close(): Promise<void>;
}

export class StoreLoadError extends Error {}

export type StoreStats = { kind: string; location: string; writes: number; failedWrites: number; avgWriteMs: number; maxWriteMs: number; lastWriteAt: string | null; slowestWrites: Array<{ at: string; ms: number }> };
