/// <reference path="./pino-roll.d.ts" />
import path from 'node:path';
import pino from 'pino';
import roll from 'pino-roll';
import type { EventBus } from '../events/bus';
import { Ring } from './ring';
import type { Redactor } from './redact';

export const levels = ['error', 'warn', 'info', 'debug', 'trace'] as const;
export type Level = (typeof levels)[number];
const rank: Record<string, number> = { error: 50, warn: 40, info: 30, debug: 20, trace: 10 };

export type LogEntry = {
  id: number;
  timestamp: string;
  level: Level;
  message: string;
  service: string;
  type: 'hub' | 'server' | 'tool_call';
  server?: string;
  tool?: string;
  duration?: number;
  status?: string;
  requestId?: string;
  userId?: string;
  /** The replica that wrote it, on entries that came from another replica. */
  replica?: string;
};

export type LogFilter = {
  level?: Level;
  since?: Date;
  from?: Date;
  to?: Date;
  server?: string;
  requestId?: string;
  type?: string;
  afterId?: number;
  /** What the caller may read (see auth/access.ts); all when absent. */
  visible?: ((e: LogEntry) => boolean) | null;
};

export function matches(e: LogEntry, f: LogFilter): boolean {
  if (f.level && rank[e.level]! < rank[f.level]!) return false;
  const t = Date.parse(e.timestamp);
  if (f.since && t < f.since.getTime()) return false;
  if (f.from && t < f.from.getTime()) return false;
  if (f.to && t > f.to.getTime()) return false;
  if (f.server && e.server !== f.server) return false;
  if (f.requestId && e.requestId !== f.requestId) return false;
  if (f.type && e.type !== f.type) return false;
  if (f.afterId !== undefined && e.id <= f.afterId) return false;
  if (f.visible && !f.visible(e)) return false;
  return true;
}

/**
 * Structured logs of Hub, its upstreams and every tool call. Recent entries
 * stay in a fixed-size window for fast reads and live feeds; all go to a
 * rotating file through pino (asynchronous, buffered), so a flood of lines
 * costs neither tool-call latency nor unbounded memory.
 */
export class LogService {
  private readonly window: Ring<LogEntry>;
  private seq = 0;
  private file?: pino.Logger;
  private dirty = false;
  private flusher?: NodeJS.Timeout;

  constructor(
    private readonly bus: EventBus,
    private readonly redactor: Redactor,
    private readonly opts: { dir: string; rotation: 'daily' | 'hourly' | 'size'; maxSize: string; maxFiles: number; windowSize?: number },
  ) {
    this.window = new Ring(opts.windowSize ?? 5000);
  }

  async init(): Promise<void> {
    const stream = await roll({
      file: path.join(this.opts.dir, 'logs', 'hub'),
      extension: '.log',
      mkdir: true,
      size: this.opts.maxSize,
      ...(this.opts.rotation !== 'size' ? { frequency: this.opts.rotation } : {}),
      limit: { count: this.opts.maxFiles },
      // Buffer lines and write in 32 KiB chunks off the request path (each write is a
      // syscall; a tool call is one ~250-byte line), and at least once a second (below).
      // Past 16 MiB waiting (a disk that cannot keep up) lines are dropped, not held.
      minLength: 32 * 1024,
      maxWrite: 64 * 1024,
      maxLength: 16 * 1024 * 1024,
    });
    this.file = pino(
      {
        base: undefined,
        timestamp: false,
        messageKey: 'message',
        formatters: { level: (label) => ({ level: label }) },
      },
      stream,
    );
    this.flusher = setInterval(() => {
      if (!this.dirty) return;
      this.dirty = false;
      this.file?.flush();
    }, 1000).unref();
  }

  /**
   * `clean`: the message is Hub's own text with any outside part already
   * redacted (tool-call lines), so the per-line scan is skipped on the hot path.
   */
  add(entry: Omit<LogEntry, 'id' | 'timestamp' | 'service'> & { service?: string }, clean = false): LogEntry {
    const message = entry.message.length > 8192 ? `${entry.message.slice(0, 8192)}…` : entry.message;
    const full: LogEntry = {
      id: ++this.seq,
      timestamp: new Date().toISOString(),
      service: entry.service ?? (entry.server ? `server:${entry.server}` : 'hub'),
      ...entry,
      message: clean ? message : this.redactor.redact(message),
    };
    this.window.push(full);
    if (this.file) {
      this.file[full.level === 'trace' ? 'trace' : full.level](full);
      this.dirty = true;
    }
    this.bus.publish('log.entry', full);
    return full;
  }

  /** An entry written by another replica: kept and published here, not written to this replica's files. */
  ingest(entry: LogEntry): LogEntry {
    const local = { ...entry, id: ++this.seq };
    this.window.push(local);
    this.bus.publish('log.entry', local);
    return local;
  }

  query(filter: LogFilter, limit = 1000): LogEntry[] {
    const out = this.window.filter((e) => matches(e, filter));
    return out.slice(-limit);
  }

  /** Empties the window of recent entries (the files keep their history until rotated away). */
  clear(): number {
    const n = this.window.length;
    this.window.clear();
    return n;
  }

  aggregate(groupBy: 'server' | 'hour' | 'level' | 'type', filter: LogFilter): Record<string, number> {
    const out: Record<string, number> = Object.create(null);
    for (const e of this.window) {
      if (!matches(e, filter)) continue;
      const key = groupBy === 'hour' ? `${e.timestamp.slice(0, 13)}:00:00Z` : groupBy === 'server' ? (e.server ?? 'hub') : e[groupBy];
      out[key] = (out[key] ?? 0) + 1;
    }
    return out;
  }

  get lastId(): number {
    return this.seq;
  }

  async close(): Promise<void> {
    clearInterval(this.flusher);
    await new Promise<void>((resolve) => {
      if (!this.file) return resolve();
      this.file.flush(() => resolve());
    });
  }
}
