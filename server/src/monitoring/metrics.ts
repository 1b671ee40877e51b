import client from 'prom-client';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** Prometheus metrics of Hub, through prom-client (the text format is its job). */
export class Metrics {
  readonly registry = new client.Registry();
  private readonly toolCalls: client.Counter;
  private readonly callLatency: client.Histogram;
  private readonly httpRequests: client.Counter;
  private readonly httpLatency: client.Histogram;
  private readonly custom = new Map<string, { type: string; metric: client.Counter | client.Gauge | client.Histogram; labels: string[] }>();

  constructor(sources: { upstreams: () => Array<{ name: string; status: string; reconnects: number }>; sessions: () => number; toolChanges?: () => Array<{ server: string }> }) {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'hub_' });
    this.toolCalls = new client.Counter({ name: 'hub_tool_calls_total', help: 'Tool calls by server, tool and status', labelNames: ['server', 'tool', 'status'], registers: [this.registry] });
    this.callLatency = new client.Histogram({
      name: 'hub_tool_call_duration_seconds',
      help: 'Tool call latency',
      labelNames: ['server'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.httpRequests = new client.Counter({ name: 'hub_http_requests_total', help: 'HTTP requests', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
    this.httpLatency = new client.Histogram({ name: 'hub_http_request_duration_seconds', help: 'HTTP request latency', labelNames: ['method'], registers: [this.registry] });
    new client.Gauge({
      name: 'hub_upstream_connected',
      help: 'Upstream servers by connection state (1 connected, 0 not)',
      labelNames: ['server', 'status'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const u of sources.upstreams()) this.set({ server: u.name, status: u.status }, u.status === 'connected' ? 1 : 0);
      },
    });
    new client.Gauge({
      name: 'hub_upstream_reconnects',
      help: 'Reconnect attempts per upstream since it started',
      labelNames: ['server'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const u of sources.upstreams()) this.set({ server: u.name }, u.reconnects);
      },
    });
    new client.Gauge({
      name: 'hub_tool_changes_pending',
      help: 'Pinned tools an upstream changed, waiting for an admin to approve or reject, per server',
      labelNames: ['server'],
      registers: [this.registry],
      collect() {
        this.reset();
        const per = new Map<string, number>();
        for (const c of sources.toolChanges?.() ?? []) per.set(c.server, (per.get(c.server) ?? 0) + 1);
        for (const [server, n] of per) this.set({ server }, n);
      },
    });
    new client.Gauge({ name: 'hub_mcp_sessions', help: 'Open agent MCP sessions', registers: [this.registry], collect() { this.set(sources.sessions()); } });
  }

  observeRequest(method: string, route: string, status: number, ms: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpLatency.observe({ method }, ms / 1000);
  }

  observeCall(server: string, tool: string, ok: boolean, ms: number): void {
    this.toolCalls.inc({ server, tool, status: ok ? 'success' : 'error' });
    this.callLatency.observe({ server }, ms / 1000);
  }

  /** A metric an operator reports (`POST /api/monitoring/metrics`), exposed as `hub_custom_<name>`. */
  record(input: { name: string; type: 'counter' | 'gauge' | 'histogram'; tags: Record<string, string>; value: number }): void {
    if (!NAME.test(input.name)) throw new Error('name: must match [a-zA-Z_:][a-zA-Z0-9_:]*');
    const full = `hub_custom_${input.name}`;
    const labels = Object.keys(input.tags).sort();
    let entry = this.custom.get(full);
    if (entry && (entry.type !== input.type || entry.labels.join() !== labels.join())) {
      throw new Error(`name: ${input.name} is already a ${entry.type} with tags [${entry.labels.join(', ')}]`);
    }
    if (!entry) {
      const opts = { name: full, help: `Custom metric ${input.name}`, labelNames: labels, registers: [this.registry] };
      const metric = input.type === 'counter' ? new client.Counter(opts) : input.type === 'gauge' ? new client.Gauge(opts) : new client.Histogram(opts);
      entry = { type: input.type, metric, labels };
      this.custom.set(full, entry);
    }
    const m = entry.metric;
    if (m instanceof client.Counter) m.inc(input.tags, input.value);
    else if (m instanceof client.Gauge) m.set(input.tags, input.value);
    else m.observe(input.tags, input.value);
  }

  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
