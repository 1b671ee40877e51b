import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * What it takes to bring an agent's streamable-HTTP session back in another
 * process (another replica, or this one after a restart): who owns it, which
 * catalogue it serves, and the `initialize` request that opened it.
 */
export type SessionRecord = {
  id: string;
  scope: string;
  smart: boolean;
  username: string | null;
  protocolVersion: string | null;
  init: JSONRPCMessage;
  createdAt: number;
  lastSeen: number;
};

/** Where session records are kept: a file in the data folder, or PostgreSQL for replicas. */
export interface SessionRecords {
  save(record: SessionRecord): Promise<void>;
  /** The record, unless missing or idle past the time-to-live. */
  find(id: string): Promise<SessionRecord | undefined>;
  /** The session ended (DELETE, expiry, revoked credential): forget it everywhere. */
  remove(id: string): void;
  /** These sessions were used lately (called every few seconds, never per request). */
  touch(ids: string[]): void;
  /** Sessions another process ended; this one closes its copy. */
  onRemoved(handler: (id: string) => void): void;
  close(): Promise<void>;
}
