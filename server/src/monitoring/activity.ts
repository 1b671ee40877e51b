import type { EventBus } from '../events/bus';
import type { LogEntry, LogService } from './logs';
import type { Metrics } from './metrics';
import { Ring } from './ring';
import type { Redactor } from './redact';

export type CallRecord = { at: number; server: string; tool: string; duration: number; ok: boolean; user?: string; error?: string; requestId?: string };

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0);

/**
 * Every tool call, wherever it came from (MCP, REST, OpenAPI): counted in
 * the metrics, logged, published live, and kept in a bounded window for the
 * monitoring reads. Nothing here touches the disk synchronously.
 */
export class Activity {
  private readonly calls: Ring<CallRecord>;
  /** Calls under way (begun, not yet recorded), for a graceful stop. */
  private running = 0;
  private draining = false;
  private drained?: () => void;

  constructor(
    private readonly bus: EventBus,
    private readonly logs: LogService,
    private readonly metrics: Metrics,
    private readonly redactor: Redactor,
    max = 20_000,
  ) {
    this.calls = new Ring(max);
  }

  /** A call starts; false once Hub is stopping (the caller refuses it). Each begun call ends in record(). */
  begin(): boolean {
    if (this.draining) return false;
    this.running++;
    return true;
  }

  /** Refuses new calls and resolves when those under way have ended, or after `ms`. */
  drain(ms: number): Promise<number> {
    this.draining = true;
    if (this.running === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.running), ms);
      this.drained = () => (clearTimeout(timer), resolve(0));
    });
  }

  record(call: Omit<CallRecord, 'at'>): void {
    if (this.running > 0 && --this.running === 0) this.drained?.();
    const at = Date.now();
    // Only the error text comes from outside: redacted and cut once, here, for the log line,
    // the live feed and the monitoring reads alike (the line then skips the log's own scan).
    const error = call.error === undefined ? undefined : this.redactor.forCaller(call.error);
    this.calls.push({ server: call.server, tool: call.tool, duration: call.duration, ok: call.ok, user: call.user, error, requestId: call.requestId, at });
    this.metrics.observeCall(call.server, call.tool, call.ok, call.duration);
    const entry = this.logs.add({
      type: 'tool_call',
      level: call.ok ? 'info' : 'error',
      message: `${call.tool} on ${call.server} ${call.ok ? 'succeeded' : `failed: ${error ?? 'error'}`} in ${call.duration.toFixed(1)} ms`,
      server: call.server,
      tool: call.tool,
      duration: call.duration,
      status: call.ok ? 'success' : 'error',
      userId: call.user,
      requestId: call.requestId,
    }, true);
    this.bus.publish('tool.call', { server: call.server, tool: call.tool, duration: call.duration, ok: call.ok, user: call.user, at: entry.timestamp, error });
  }

  /** A call another replica served, from its log entry: kept for the monitoring reads and published live. */
  ingest(e: LogEntry): void {
    if (e.type !== 'tool_call' || !e.server || !e.tool) return;
    const ok = e.status === 'success';
    const error = ok ? undefined : /failed: (.*) in [\d.]+ ms$/.exec(e.message)?.[1];
    const at = Date.parse(e.timestamp);
    this.calls.push({ server: e.server, tool: e.tool, duration: e.duration ?? 0, ok, user: e.userId, error, requestId: e.requestId, at });
    this.bus.publish('tool.call', { server: e.server, tool: e.tool, duration: e.duration ?? 0, ok, user: e.userId, at: e.timestamp, error });
  }

  /** Calls of the last `sinceMs`, of one server, and those `keep` lets through (a caller's read scope). */
  window(sinceMs: number, server?: string, keep?: ((c: CallRecord) => boolean) | null): CallRecord[] {
    const from = Date.now() - sinceMs;
    return this.calls.filter((c) => c.at >= from && (!server || c.server === server) && (!keep || keep(c)));
  }

  summary(sinceMs: number, server?: string, keep?: ((c: CallRecord) => boolean) | null) {
    const calls = this.window(sinceMs, server, keep);
    const durations = calls.map((c) => c.duration).sort((a, b) => a - b);
    const errors = calls.filter((c) => !c.ok).length;
    const byTool: Record<string, { calls: number; errors: number; avgMs: number }> = Object.create(null);
    for (const c of calls) {
      const k = `${c.server}/${c.tool}`;
      const t = (byTool[k] ??= { calls: 0, errors: 0, avgMs: 0 });
      t.avgMs = (t.avgMs * t.calls + c.duration) / (t.calls + 1);
      t.calls++;
      if (!c.ok) t.errors++;
    }
    // Calls and errors per minute over the range (at most 60 points), oldest first, for charts.
    const step = Math.max(60_000, Math.ceil(sinceMs / 60 / 60_000) * 60_000);
    const end = Math.ceil(Date.now() / 60_000) * 60_000;
    const points = Math.min(60, Math.ceil(sinceMs / step));
    const timeline = Array.from({ length: points }, (_, i) => ({ at: end - (points - i) * step, calls: 0, errors: 0 }));
    for (const c of calls) {
      const i = points - 1 - Math.floor((end - 1 - c.at) / step);
      if (i >= 0 && i < points) (timeline[i]!.calls++, c.ok || timeline[i]!.errors++);
    }
    return {
      calls: calls.length,
      errors,
      timeline,
      errorRate: calls.length ? errors / calls.length : 0,
      latencyMs: { p50: pct(durations, 50), p95: pct(durations, 95), p99: pct(durations, 99), max: durations.at(-1) ?? 0 },
      byTool,
    };
  }

  slowest(sinceMs: number, n = 20, keep?: ((c: CallRecord) => boolean) | null): CallRecord[] {
    return [...this.window(sinceMs, undefined, keep)].sort((a, b) => b.duration - a.duration).slice(0, n);
  }
}
