import { itemEnabled } from '../servers/visibility';
import { pendingChange, pinKinds, pinMapKey } from '../servers/pins';
import { TRPCError } from '@trpc/server';
import {
  inferServerType,
  userSecretNames,
  type ItemKind,
  type PromptView,
  type ServerConfig,
  type ServerView,
  type ToolView,
} from '@hub/contract';
import type { Store } from '../store/store';
import { putKey } from '../store/safe-maps';
import type { ServerRegistry } from '../servers/registry';
import type { Catalog } from '../mcp/catalog';
import type { Principal } from '../auth/principal';
import { bundleServerConfig, unpackBundle } from '../servers/bundle';
import { serverForState } from '../servers/oauth-provider';
import { visibleServers } from '../auth/access';
import { keepMasked, masked, serverSecretPaths } from '../auth/secrets';
import { placeholders } from '../servers/expand';
import { envVarAllowed, isHubVariable } from '../config';
import type { Redactor } from '../monitoring/redact';

const oauthSecrets = ['clientSecret', 'accessToken', 'refreshToken', 'pendingAuthorization'];

function withoutOAuthSecrets(cfg: ServerConfig): Record<string, unknown> {
  if (!cfg.oauth) return cfg as Record<string, unknown>;
  const oauth = Object.fromEntries(Object.entries(cfg.oauth).filter(([k]) => !oauthSecrets.includes(k)));
  return { ...cfg, oauth: { ...oauth, authorized: Boolean((cfg.oauth as { accessToken?: string }).accessToken) } };
}

const notFound = (what: string) => new TRPCError({ code: 'NOT_FOUND', message: `${what} not found` });

/** Where a server connects to: a change of it sends the stored credentials somewhere new. */
const targetOf = (cfg: ServerConfig) => JSON.stringify([cfg.url ?? null, cfg.openapi?.url ?? null, cfg.command ?? null, cfg.args ?? null]);

export type ServersOptions = {
  bundlesDir: string;
  redactor: Redactor;
  /** `HUB_ALLOWED_ENV_VARS`; null: only admins may write `${VAR}`. */
  allowedEnvVars: readonly string[] | null;
};

/** Server configurations and their enable flags and descriptions, as operators change them. */
export class ServersService {
  constructor(
    private readonly store: Store,
    private readonly registry: ServerRegistry,
    private readonly catalog: Catalog,
    private readonly opts: ServersOptions,
  ) {}

  private config(name: string): ServerConfig {
    const cfg = this.store.get().mcpServers[name];
    if (!cfg) throw notFound(`Server ${name}`);
    return cfg;
  }

  /** A server as `principal` may see it: secret values masked for all but admins. */
  view(name: string, principal: Principal | null): ServerView {
    const cfg = this.config(name);
    const st = this.registry.state(name)!;
    // What tools and prompts share: upstream name, exposed name, description override, enabled flag.
    const item = (kind: 'tools' | 'prompts', i: { name: string; description?: string }) => {
      const o = cfg[kind]?.[i.name];
      return {
        name: i.name,
        exposedName: this.catalog.exposedName(kind, name, i.name),
        description: o?.description ?? i.description ?? '',
        ...(o?.description !== undefined ? { originalDescription: i.description ?? '' } : {}),
        enabled: itemEnabled(kind, cfg, this.store.get().systemConfig, i.name),
      };
    };
    const settings = this.store.get();
    const callerSecrets = userSecretNames(cfg);
    const tools: ToolView[] = st.tools.map((t) => {
      const change = pendingChange(settings, name, t.name);
      return { ...item('tools', t), inputSchema: t.inputSchema, ...(change ? { change } : {}) };
    });
    const prompts: PromptView[] = st.prompts.map((p) => {
      const change = pendingChange(settings, name, p.name, 'prompts');
      return { ...item('prompts', p), arguments: p.arguments, ...(change ? { change } : {}) };
    });
    return {
      name,
      type: inferServerType(cfg),
      status: cfg.enabled === false ? 'disabled' : st.status,
      error: this.opts.redactor.forCaller(st.error),
      enabled: cfg.enabled !== false,
      owner: cfg.owner,
      authorizationUrl: st.authorizationUrl,
      tools,
      prompts,
      resources: st.resources.map((r) => ({ uri: r.uri, name: r.name, description: r.description })),
      config: principal?.role === 'admin' ? withoutOAuthSecrets(cfg) : masked(withoutOAuthSecrets(cfg), serverSecretPaths),
      reconnects: st.reconnects,
      ...(callerSecrets.length ? { callerSecrets } : {}),
    };
  }

  /** The servers a caller may see (admins and managers: all). */
  list(principal: Principal): ServerView[] {
    const visible = visibleServers(principal, this.store.get());
    return Object.keys(this.store.get().mcpServers)
      .filter((n) => !visible || visible.has(n))
      .map((n) => this.view(n, principal));
  }

  canSee(principal: Principal, name: string): boolean {
    const visible = visibleServers(principal, this.store.get());
    return !visible || visible.has(name);
  }

  viewFor(principal: Principal, name: string): ServerView {
    const visible = visibleServers(principal, this.store.get());
    if (visible && !visible.has(name)) throw notFound(`Server ${name}`);
    return this.view(name, principal);
  }

  /**
   * What a caller may write into a server's configuration. stdio servers run
   * commands: admins only. `${VAR}` reads Hub's environment: Hub's own
   * variables never, others by admins, or by anyone when HUB_ALLOWED_ENV_VARS
   * lists them. A non-admin who moves a server elsewhere re-enters its secrets.
   * Masked secrets sent back are restored from `old` first (in place).
   */
  private checkWrite(principal: Principal, cfg: ServerConfig, old?: ServerConfig): void {
    const admin = principal.role === 'admin';
    if (inferServerType(cfg) === 'stdio' && !admin) {
      throw new TRPCError({ code: 'FORBIDDEN', message: 'Only admins can add or change stdio servers: they run commands on the host' });
    }
    const moved = old !== undefined && targetOf(old) !== targetOf(cfg);
    const kept = keepMasked(cfg, old, serverSecretPaths);
    if (moved && kept.length && !admin) {
      throw new TRPCError({ code: 'FORBIDDEN', message: `config.${kept[0]}: re-enter this secret to change where the server connects (stored secrets are not sent to a new address)` });
    }
    // Each caller's own credential goes wherever the server connects: only admins choose that.
    const personal = userSecretNames(cfg);
    if (!admin && personal.length) {
      const had = new Set(old ? userSecretNames(old) : []);
      const added = personal.find((n) => !had.has(n));
      if (added) throw new TRPCError({ code: 'FORBIDDEN', message: `config: only admins may use \${user.secret.${added}}: each caller's own credential is sent to this server` });
      if (moved) throw new TRPCError({ code: 'FORBIDDEN', message: "config: only admins may change where a server that uses callers' own secrets connects" });
    }
    const before = old && !(moved && !admin) ? placeholders(old) : new Map<string, Set<string>>();
    for (const [at, names] of placeholders(cfg)) {
      for (const name of names) {
        if (before.get(at)?.has(name)) continue;
        if (isHubVariable(name)) throw new TRPCError({ code: 'BAD_REQUEST', message: `config.${at}: \${${name}} is one of Hub's own variables and is never expanded` });
        if (!admin && !(this.opts.allowedEnvVars && envVarAllowed(name, this.opts.allowedEnvVars))) {
          throw new TRPCError({ code: 'FORBIDDEN', message: `config.${at}: only admins may reference environment variables (\${${name}}) unless HUB_ALLOWED_ENV_VARS allows them` });
        }
      }
    }
  }

  async create(principal: Principal, name: string, config: ServerConfig): Promise<ServerView> {
    this.checkWrite(principal, config);
    await this.store.update((s) => {
      if (s.mcpServers[name]) throw new TRPCError({ code: 'CONFLICT', message: `Server ${name} already exists` });
      s.mcpServers[name] = { ...config, owner: config.owner ?? principal.username };
    });
    return this.view(name, principal);
  }

  /** Installs an MCP bundle under the data folder and adds its server. */
  async importBundle(principal: Principal, data: Buffer): Promise<ServerView> {
    if (principal.role !== 'admin') {
      throw new TRPCError({ code: 'FORBIDDEN', message: 'Only admins can install bundles: they run commands on the host' });
    }
    const { manifest, dir } = await unpackBundle(data, this.opts.bundlesDir, (m) => {
      if (this.store.get().mcpServers[m.name]) throw new TRPCError({ code: 'CONFLICT', message: `Server ${m.name} already exists` });
    });
    return this.create(principal, manifest.name, bundleServerConfig(manifest, dir));
  }

  /** Completes an upstream's OAuth authorization from the provider's redirect. */
  async finishOAuth(input: { code?: string; state?: string; error?: string }): Promise<{ server: string; message: string }> {
    if (input.error) throw new TRPCError({ code: 'BAD_REQUEST', message: `Authorization was refused: ${input.error}` });
    if (!input.code || !input.state) throw new TRPCError({ code: 'BAD_REQUEST', message: 'code and state are required' });
    const name = serverForState(this.store, input.state);
    const upstream = name ? this.registry.upstream(name) : undefined;
    if (!name || !upstream?.finishAuth) throw new TRPCError({ code: 'NOT_FOUND', message: 'No authorization is pending for this state' });
    try {
      await upstream.finishAuth(input.code);
    } catch (err) {
      throw new TRPCError({ code: 'BAD_GATEWAY', message: `Token exchange failed: ${(err as Error).message}` });
    }
    return { server: name, message: `Server ${name} is authorized` };
  }

  /** Replaces a server's configuration; with `newName`, also renames it in every group and user. */
  async update(principal: Principal, name: string, config: ServerConfig, newName?: string): Promise<ServerView> {
    const current = this.store.get().mcpServers[name];
    if (!current) throw notFound(`Server ${name}`);
    this.checkWrite(principal, config, current);
    const target = newName ?? name;
    await this.store.update((s) => {
      const old = s.mcpServers[name];
      if (!old) throw notFound(`Server ${name}`);
      if (target !== name) {
        if (s.mcpServers[target]) throw new TRPCError({ code: 'CONFLICT', message: `Server ${target} already exists` });
        delete s.mcpServers[name];
        for (const g of s.groups) g.servers = g.servers.map((e) => (typeof e === 'string' ? (e === name ? target : e) : e.name === name ? { ...e, name: target } : e));
        for (const u of s.users) if (u.servers) u.servers = u.servers.map((n) => (n === name ? target : n));
        // Pinned tools go with the server: a rename must not reset what was approved.
        for (const kind of pinKinds) {
          const pins = s[pinMapKey(kind)];
          if (pins && Object.hasOwn(pins, name)) {
            putKey(pins, target, pins[name]!);
            delete pins[name];
          }
        }
      }
      // Overrides made through the toggle and description endpoints survive a config edit that omits them.
      s.mcpServers[target] = {
        ...config,
        tools: config.tools ?? old.tools,
        prompts: config.prompts ?? old.prompts,
        resources: config.resources ?? old.resources,
        owner: config.owner ?? old.owner,
        // Tokens and secrets are never shown, so an edit that omits them keeps them.
        ...(old.oauth || config.oauth ? { oauth: { ...old.oauth, ...config.oauth } } : {}),
      };
    });
    return this.view(target, principal);
  }

  async remove(name: string): Promise<void> {
    await this.store.update((s) => {
      if (!s.mcpServers[name]) throw notFound(`Server ${name}`);
      delete s.mcpServers[name];
      for (const g of s.groups) g.servers = g.servers.filter((e) => (typeof e === 'string' ? e : e.name) !== name);
      for (const u of s.users) if (u.servers) u.servers = u.servers.filter((n) => n !== name);
      for (const kind of pinKinds) delete s[pinMapKey(kind)]?.[name];
    });
  }

  async toggle(principal: Principal, name: string, enabled: boolean): Promise<ServerView> {
    await this.store.update((s) => {
      const cfg = s.mcpServers[name];
      if (!cfg) throw notFound(`Server ${name}`);
      cfg.enabled = enabled;
    });
    return this.view(name, principal);
  }

  /** Sets the enabled flag or description of one tool or prompt; `description: null` restores the upstream's. */
  async setItem(principal: Principal, server: string, kind: ItemKind, item: string, change: { enabled?: boolean; description?: string | null }) {
    const st = this.registry.state(server);
    const known = kind === 'tools' ? st?.tools.some((t) => t.name === item) : st?.prompts.some((p) => p.name === item);
    const stored = this.store.get().mcpServers[server]?.[kind]?.[item];
    if (!this.store.get().mcpServers[server]) throw notFound(`Server ${server}`);
    if (!known && !stored) throw notFound(`${kind === 'tools' ? 'Tool' : 'Prompt'} ${item} of server ${server}`);
    await this.store.update((s) => {
      const cfg = s.mcpServers[server];
      if (!cfg) throw notFound(`Server ${server}`);
      const map = (cfg[kind] ??= {});
      const entry = { ...map[item] };
      if (change.enabled !== undefined) entry.enabled = change.enabled;
      if (change.description === null) delete entry.description;
      else if (change.description !== undefined) entry.description = change.description;
      if (entry.enabled === undefined) entry.enabled = true;
      map[item] = entry;
    });
    return this.view(server, principal)[kind].find((i) => i.name === item) ?? null;
  }
}
