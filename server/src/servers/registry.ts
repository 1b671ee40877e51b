import path from 'node:path';
import type { ServerConfig } from '@hub/contract';
import { inferServerType, userSecretNames } from '@hub/contract';
import type { Principal } from '../auth/principal';
import { callerSecrets, Lanes, withSecrets } from './personal';
import type { Config } from '../config';
import type { Store } from '../store/store';
import type { EventBus } from '../events/bus';
import { expandEnv } from './expand';
import { McpUpstream } from './mcp-upstream';
import { OpenApiUpstream } from './openapi-upstream';
import { ToolCache } from './tool-cache';
import { StoredOAuthProvider } from './oauth-provider';
import type { LogService } from '../monitoring/logs';
import type { Redactor } from '../monitoring/redact';

const secretKey = /secret|token|key|password|passwd|auth|credential/i;
import type { AgentReach, Upstream, UpstreamEvents, UpstreamLists, UpstreamState } from './upstream';

/** `personal`: the server's headers or env use `${user.secret.NAME}`; calls go through the caller's lane. */
type Entry = { upstream: Upstream; fingerprint: string; personal?: { names: string[]; lanes: Lanes } };

// Keys that only change what is exposed, not how to connect.
// `oauth` holds tokens Hub itself saves; a new token must not restart the connection.
const exposureKeys = new Set(['tools', 'prompts', 'resources', 'description', 'owner', 'enabled', 'namePrefix', 'oauth']);

function fingerprint(cfg: ServerConfig): string {
  return JSON.stringify(Object.entries(cfg).filter(([k]) => !exposureKeys.has(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Keeps one live upstream per enabled server, in step with the stored configuration. */
export class ServerRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly cache: ToolCache;
  private readonly listeners = new Set<(name: string, what: 'status' | 'lists' | 'removed') => void>();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly config: Config,
    /** Where OAuth providers send users back to: `<public origin>/oauth/callback`. */
    private readonly callbackUrl: () => string,
    private readonly redactor: Redactor,
    private readonly logs?: LogService,
    private readonly agents?: AgentReach,
  ) {
    this.cache = new ToolCache(path.join(config.dataDir, 'tool-cache.json'));
  }

  async init(): Promise<void> {
    await this.cache.load();
  }

  onChange(listener: (name: string, what: 'status' | 'lists' | 'removed') => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(name: string, what: 'status' | 'lists' | 'removed'): void {
    for (const l of this.listeners) l(name, what);
  }

  private readonly events: UpstreamEvents = {
    onLog: (name, level, message) => {
      const lvl = level === 'error' || level === 'critical' || level === 'alert' || level === 'emergency' ? 'error' : level === 'warning' || level === 'warn' ? 'warn' : level === 'debug' ? 'debug' : 'info';
      this.logs?.add({ type: 'server', level: lvl, server: name, message });
    },
    onResourceUpdated: (name, uri) => this.bus.publish('resource.updated', { server: name, uri }),
    onChange: (name, what) => {
      const entry = this.entries.get(name);
      if (!entry) return;
      const st = entry.upstream.state;
      if (what === 'lists') this.cache.set(name, st);
      this.bus.publish('server.status', { name, status: st.status, error: this.redactor.forCaller(st.error), at: new Date().toISOString(), change: what, tools: st.tools.length });
      this.emit(name, what);
    },
  };

  /** The server's own connection (lists, health checks); calls use `upstreamFor`. */
  upstream(name: string): Upstream | undefined {
    return this.entries.get(name)?.upstream;
  }

  /**
   * The connection a caller's requests go through: the server's own, or, for a
   * server that uses per-caller secrets, the one for the caller's values
   * (throws a clear error when the caller has not set them).
   */
  upstreamFor(name: string, principal: Principal | null): Upstream | undefined {
    const entry = this.entries.get(name);
    if (!entry?.personal) return entry?.upstream;
    return entry.personal.lanes.get(callerSecrets(this.store.get(), name, entry.personal.names, principal));
  }

  /** Live state, or the cached lists with `disabled` status for servers that are off. */
  state(name: string): UpstreamState | undefined {
    const entry = this.entries.get(name);
    const live = entry?.upstream.state;
    // Without secrets the server's own connection may be refused: a caller's connection tells its tools.
    const lane = entry?.personal && live?.status !== 'connected' ? entry.personal.lanes.anyState() : undefined;
    if (live && lane) return { ...live, tools: lane.tools, prompts: lane.prompts };
    if (live) return live;
    const cfg = this.store.get().mcpServers[name];
    if (!cfg) return undefined;
    const cached = this.cache.get(name);
    return {
      status: 'disabled',
      error: null,
      cached: true,
      reconnects: 0,
      tools: cached?.tools ?? [],
      prompts: cached?.prompts ?? [],
      resources: cached?.resources ?? [],
      resourceTemplates: cached?.resourceTemplates ?? [],
    };
  }

  private create(name: string, cfg: ServerConfig): Entry {
    const expanded = expandEnv(cfg, this.config.expansionEnv);
    const names = userSecretNames(expanded);
    if (!names.length) return { upstream: this.build(name, expanded, this.events), fingerprint: fingerprint(cfg) };
    const laneEvents: UpstreamEvents = {
      ...this.events,
      onChange: (n, what) => {
        if (what === 'lists' && this.entries.get(n)?.upstream.state.status !== 'connected') this.emit(n, 'lists');
      },
    };
    // A caller's lane authenticates with the caller's own values: never with the server's shared OAuth tokens.
    const lanes = new Lanes((values) => this.build(name, withSecrets(expanded, values), laneEvents, false));
    return { upstream: this.build(name, withSecrets(expanded, {}), this.events), fingerprint: fingerprint(cfg), personal: { names, lanes } };
  }

  private build(name: string, expanded: ServerConfig, events: UpstreamEvents, oauth = true): Upstream {
    // Secret-looking env values and header values must never reach the logs.
    this.redactor.add([
      ...Object.entries(expanded.env ?? {}).filter(([k]) => secretKey.test(k)).map(([, v]) => v),
      ...Object.values(expanded.headers ?? {}),
    ]);
    const cached: UpstreamLists | undefined = this.cache.get(name);
    const install = this.store.get().systemConfig.install ?? {};
    if (inferServerType(expanded) === 'openapi') {
      return new OpenApiUpstream({ name, config: expanded, events, cached });
    }
    const installEnv: Record<string, string> = {};
    if (install.pythonIndexUrl) Object.assign(installEnv, { UV_DEFAULT_INDEX: install.pythonIndexUrl, PIP_INDEX_URL: install.pythonIndexUrl });
    if (install.jsPackageRegistry) installEnv.npm_config_registry = install.jsPackageRegistry;
    const type = inferServerType(expanded);
    let upstream: McpUpstream | undefined;
    const authProvider =
      type === 'stdio' || !oauth ? undefined : new StoredOAuthProvider(name, this.store, this.callbackUrl, (url) => upstream?.markAuthorizationUrl(url));
    upstream = new McpUpstream({ name, config: expanded, events, installEnv, cached, authProvider, version: this.config.version, agents: this.agents });
    return upstream;
  }

  /**
   * Brings the live upstreams in line with the settings: starts new and
   * re-enabled servers, restarts changed ones, stops removed and disabled ones.
   * New connections start at most `concurrency` at a time.
   */
  async sync(concurrency = 4): Promise<void> {
    if (this.stopped) return;
    const servers = this.store.get().mcpServers;
    const toStart: Array<[string, ServerConfig]> = [];
    for (const [name, entry] of this.entries) {
      const cfg = servers[name];
      if (!cfg || cfg.enabled === false || fingerprint(cfg) !== entry.fingerprint) {
        this.entries.delete(name);
        void entry.upstream.stop();
        void entry.personal?.lanes.stopAll();
        if (!cfg) this.cache.delete(name);
        this.emit(name, cfg ? 'status' : 'removed');
        // Stopped by a settings change (disabled, deleted, reconfigured): live views hear it as any other change.
        const status = !cfg ? 'removed' : cfg.enabled === false ? 'disabled' : 'connecting';
        if (status !== 'connecting') {
          this.logs?.add({ type: 'hub', level: 'info', server: name, message: `Server ${name} ${status === 'removed' ? 'was deleted' : 'was disabled'}` });
          this.bus.publish('server.status', { name, status, error: null, at: new Date().toISOString(), change: 'status', tools: entry.upstream.state.tools.length });
        }
      }
    }
    for (const [name, cfg] of Object.entries(servers)) {
      if (cfg.enabled !== false && !this.entries.has(name)) toStart.push([name, cfg]);
    }
    for (const [name, cfg] of toStart) {
      this.entries.set(name, this.create(name, cfg));
    }
    const queue = toStart.map(([name]) => name);
    const worker = async () => {
      for (let name = queue.shift(); name; name = queue.shift()) {
        const up = this.entries.get(name)?.upstream;
        if (up) await up.start();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  }

  async stopAll(): Promise<void> {
    this.stopped = true;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.flatMap((e) => [e.upstream.stop(), e.personal?.lanes.stopAll()]));
    await this.cache.flush();
  }
}
