import type { EventBus } from '../events/bus';
import type { Store } from '../store/store';
import type { ServerRegistry } from '../servers/registry';
import type { LogService } from './logs';
import type { Activity } from './activity';

const ms = (d: string) => {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(d);
  if (!m) return 0;
  return Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's'] ?? 1000);
};

/**
 * Watches the upstreams and the call stream: health checks (ping with
 * timeout and retries), `server.down` / `server.up` on status changes,
 * `error.rate.high` and alert rules, delivered to webhooks with retries and
 * backoff. Nothing here waits on a webhook: deliveries run on their own.
 */
export class Watchdog {
  private readonly lastStatus = new Map<string, string>();
  private readonly failures = new Map<string, number>();
  private readonly firing = new Map<string, number>();
  private timers: NodeJS.Timeout[] = [];
  private healthTimer?: NodeJS.Timeout;
  private off?: () => void;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly registry: ServerRegistry,
    private readonly logs: LogService,
    private readonly activity: Activity,
  ) {}

  private cfg() {
    return this.store.get().systemConfig.monitoring ?? {};
  }

  start(): void {
    if (this.off) return;
    this.off = this.bus.subscribe('server.status', ({ name, status, error, change }) => {
      if (change !== 'lists') this.onStatus(name, status, error);
    });
    const evaluate = setInterval(() => this.evaluate(), 5000);
    evaluate.unref();
    this.timers.push(evaluate);
    this.scheduleHealth();
  }

  private scheduleHealth(): void {
    const hc = { enabled: true, interval: 30_000, timeout: 5000, retries: 3, ...this.cfg().healthCheck };
    this.healthTimer = setTimeout(() => {
      if (hc.enabled) void this.healthCheck(hc.timeout, hc.retries);
      this.scheduleHealth();
    }, hc.interval);
    this.healthTimer.unref();
  }

  /** Pings every connected upstream; after `retries` failures in a row it is reconnected. */
  async healthCheck(timeout: number, retries: number): Promise<void> {
    for (const name of Object.keys(this.store.get().mcpServers)) {
      const up = this.registry.upstream(name);
      if (!up || up.state.status !== 'connected' || !up.ping) continue;
      try {
        await up.ping(timeout);
        this.failures.delete(name);
      } catch (err) {
        const n = (this.failures.get(name) ?? 0) + 1;
        this.failures.set(name, n);
        this.logs.add({ type: 'hub', level: 'warn', server: name, message: `Health check ${n}/${retries} of ${name} failed: ${(err as Error).message}` });
        if (n >= retries) {
          this.failures.delete(name);
          await up.reconnect?.();
        }
      }
    }
  }

  private onStatus(name: string, status: string, error: string | null): void {
    const before = this.lastStatus.get(name);
    this.lastStatus.set(name, status);
    if (before === status) return;
    const level = status === 'error' || status === 'disconnected' ? 'warn' : 'info';
    this.logs.add({ type: 'hub', level, server: name, message: `Server ${name} is ${status}${error ? `: ${error}` : ''}` });
    if (before === 'connected' && (status === 'disconnected' || status === 'error')) this.emit('server.down', { server: name, status, error });
    if (status === 'connected' && before && before !== 'connecting' && before !== 'connected') this.emit('server.up', { server: name });
    if (status === 'connected' && before === 'connecting' && this.firing.has(`down:${name}`)) this.emit('server.up', { server: name });
    if (before === 'connected' && status !== 'connected') this.firing.set(`down:${name}`, Date.now());
    if (status === 'connected') this.firing.delete(`down:${name}`);
  }

  /** Error rate and alert rules, every few seconds. */
  private evaluate(): void {
    const s = this.activity.summary(5 * 60_000);
    const high = s.calls >= 10 && s.errorRate > 0.5;
    if (high && !this.firing.has('error.rate.high')) {
      this.firing.set('error.rate.high', Date.now());
      this.emit('error.rate.high', { errorRate: s.errorRate, calls: s.calls, windowMinutes: 5 });
    } else if (!high) this.firing.delete('error.rate.high');
    for (const rule of this.cfg().alerts ?? []) {
      const m = /^(error_rate|latency_p99)\s*>\s*([\d.]+)$/.exec(rule.condition);
      const down = [...this.lastStatus.entries()].filter(([, st]) => st === 'error' || st === 'disconnected').map(([n]) => n);
      const value = rule.condition === 'server_down' ? down.length : m?.[1] === 'error_rate' ? s.errorRate : s.latencyMs.p99;
      const holds = rule.condition === 'server_down' ? down.length > 0 : value > Number(m?.[2] ?? Infinity);
      const key = `rule:${rule.name}`;
      if (!holds) {
        this.firing.delete(key);
        this.firing.delete(`${key}:sent`);
        continue;
      }
      if (!this.firing.has(key)) this.firing.set(key, Date.now());
      if (Date.now() - this.firing.get(key)! >= ms(rule.duration ?? '0s') && !this.firing.has(`${key}:sent`)) {
        this.firing.set(`${key}:sent`, Date.now());
        this.emit('alert', { rule: rule.name, condition: rule.condition, severity: rule.severity ?? 'warning', value, servers: down }, rule.channels);
      }
    }
  }

  emit(event: string, data: Record<string, unknown>, channels: string[] = []): void {
    for (const hook of this.cfg().webhooks ?? []) {
      const wanted = hook.events.includes(event) || hook.events.includes('*') || (channels.length > 0 && channels.includes(hook.url));
      if (wanted) void this.deliver(hook.url, hook.headers ?? {}, { event, timestamp: new Date().toISOString(), data });
    }
  }

  private async deliver(url: string, headers: Record<string, string>, payload: unknown, attempts = 4): Promise<void> {
    for (let i = 0; i < attempts; i++) {
      try {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload), signal: AbortSignal.timeout(10_000) });
        if (res.ok) return;
        throw new Error(`answered ${res.status}`);
      } catch (err) {
        this.logs.add({ type: 'hub', level: 'warn', message: `Webhook ${url} attempt ${i + 1}/${attempts} failed: ${(err as Error).message}` });
        if (i < attempts - 1) await new Promise((r) => setTimeout(r, 500 * 2 ** i).unref());
      }
    }
  }

  stop(): void {
    this.off?.();
    this.off = undefined;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    clearTimeout(this.healthTimer);
  }
}
