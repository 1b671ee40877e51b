import { itemEnabled } from '../servers/visibility';
import { agreedItem } from '../servers/pins';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Group, SettingsFile, ToolShape } from '@hub/contract';
import { shapeTool } from './shaping';
import type { Store } from '../store/store';
import type { EventBus } from '../events/bus';
import type { ServerRegistry } from '../servers/registry';
import { assignNames } from './naming';
import type { Principal } from '../auth/principal';
import { grantedScopes } from '../auth/access';

/** `shape`: how a group reshapes the tool (name, description, fixed and default arguments). */
export type ExposedTool = { name: string; server: string; original: string; tool: Tool; shape?: ToolShape };
export type ExposedPrompt = { name: string; server: string; original: string; prompt: Prompt };

/** What one route (all servers, a group, or one server) exposes; built once per change, read on every call. */
export type Scope = {
  tools: ExposedTool[];
  toolIndex: Map<string, ExposedTool>;
  /** By `<server>\u0000<original name>`, for REST calls that name the upstream tool. */
  toolByOriginal: Map<string, ExposedTool>;
  prompts: ExposedPrompt[];
  promptIndex: Map<string, ExposedPrompt>;
  promptByOriginal: Map<string, ExposedPrompt>;
  resources: Array<{ server: string; resource: Resource }>;
  resourceIndex: Map<string, string>;
  templates: Array<{ server: string; template: ResourceTemplate }>;
};

type Selection = { tools: 'all' | Set<string>; prompts: 'all' | Set<string>; resources: 'all' | Set<string>; shapes?: Record<string, ToolShape> };

function toSel(v: 'all' | string[] | undefined): 'all' | Set<string> {
  return v === undefined || v === 'all' ? 'all' : new Set(v);
}

export function findGroup(settings: Readonly<SettingsFile>, idOrName: string): Group | undefined {
  return settings.groups.find((g) => g.id === idOrName) ?? settings.groups.find((g) => g.name === idOrName);
}

/** The exposed catalog per scope, cached until something that affects it changes. */
export class Catalog {
  private cache = new Map<string, Scope | null>();
  // Per caller object (a session keeps one between admissions): the access of
  // restricted callers is worked out once per change, not on every call. Keyed by
  // the object, whose access never changes, so a session's change listener holding
  // the caller as it was cannot leave a stale entry for the fresh one.
  private byPrincipal = new WeakMap<Principal, Map<string, Scope | null>>();
  private names?: { tools: Map<string, Map<string, string>>; prompts: Map<string, Map<string, string>> };
  version = 0;

  constructor(
    private readonly store: Store,
    private readonly registry: ServerRegistry,
    private readonly bus: EventBus,
  ) {
    store.onChange(() => this.invalidate());
    registry.onChange((_name, what) => {
      if (what !== 'status') this.invalidate();
    });
  }

  invalidate(): void {
    this.cache.clear();
    this.byPrincipal = new WeakMap();
    this.names = undefined;
    this.version++;
    this.bus.publish('catalog.changed', { version: this.version });
  }

  private separator(): string {
    return this.store.get().systemConfig.nameSeparator ?? '-';
  }

  /** The exposed name of one server's tool or prompt (for views), if it has one. */
  exposedName(kind: 'tools' | 'prompts', server: string, name: string): string | undefined {
    return this.allNames()[kind].get(server)?.get(name);
  }

  /** Exposed names are global, so a tool keeps its name on every route. */
  private allNames() {
    if (this.names) return this.names;
    const settings = this.store.get();
    const toolPairs: Array<[string, string]> = [];
    const promptPairs: Array<[string, string]> = [];
    for (const server of Object.keys(settings.mcpServers)) {
      const st = this.registry.state(server);
      for (const t of st?.tools ?? []) toolPairs.push([server, t.name]);
      for (const p of st?.prompts ?? []) promptPairs.push([server, p.name]);
    }
    const prefixOf = (server: string) => settings.mcpServers[server]?.namePrefix ?? server;
    this.names = {
      tools: assignNames(toolPairs, this.separator(), prefixOf),
      prompts: assignNames(promptPairs, this.separator(), prefixOf),
    };
    return this.names;
  }

  /** `all`, `group:<id or name>` or `server:<name>`; null when the group or server does not exist. */
  scope(key: string): Scope | null {
    let scope = this.cache.get(key);
    if (scope === undefined) {
      scope = this.build(key);
      this.cache.set(key, scope);
    }
    return scope;
  }

  /**
   * The scope as one caller may see it: for callers limited to some servers
   * and groups, only the tools, prompts and resources those grant.
   */
  scopeFor(key: string, principal: Principal | null): Scope | null {
    const base = this.scope(key);
    if (!base || !principal) return base;
    const seen = this.byPrincipal.get(principal)?.get(key);
    if (seen !== undefined) return seen;
    const scoped = this.scopeForAccess(base, principal);
    let mine = this.byPrincipal.get(principal);
    if (!mine) this.byPrincipal.set(principal, (mine = new Map()));
    mine.set(key, scoped);
    return scoped;
  }

  private scopeForAccess(base: Scope, principal: Principal): Scope {
    const granted = grantedScopes(principal, this.store.get());
    if (granted === null) return base;
    const tools = new Set<string>();
    const prompts = new Set<string>();
    const resources = new Set<string>();
    for (const g of granted) {
      const sc = this.scope(g);
      sc?.tools.forEach((t) => tools.add(t.name));
      sc?.prompts.forEach((p) => prompts.add(p.name));
      sc?.resources.forEach((r) => resources.add(r.resource.uri));
    }
    return filterScope(base, tools, prompts, resources);
  }

  private selections(key: string): Map<string, Selection> | null {
    const settings = this.store.get();
    const all = (names: string[]) => new Map(names.map((n) => [n, { tools: 'all', prompts: 'all', resources: 'all' } as Selection]));
    if (key === 'all') return all(Object.keys(settings.mcpServers));
    if (key.startsWith('server:')) {
      const name = key.slice(7);
      return settings.mcpServers[name] ? all([name]) : null;
    }
    const group = findGroup(settings, key.slice(6));
    if (!group) return null;
    const sel = new Map<string, Selection>();
    for (const entry of group.servers) {
      if (typeof entry === 'string') sel.set(entry, { tools: 'all', prompts: 'all', resources: 'all' });
      else sel.set(entry.name, { tools: toSel(entry.tools), prompts: toSel(entry.prompts), resources: toSel(entry.resources), shapes: entry.toolsOverride });
    }
    return sel;
  }

  private build(key: string): Scope | null {
    const sel = this.selections(key);
    if (!sel) return null;
    const settings = this.store.get();
    const names = this.allNames();
    const scope: Scope = { tools: [], toolIndex: new Map(), toolByOriginal: new Map(), prompts: [], promptIndex: new Map(), promptByOriginal: new Map(), resources: [], resourceIndex: new Map(), templates: [] };
    for (const [server, pick] of [...sel].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const cfg = settings.mcpServers[server];
      const st = this.registry.state(server);
      if (!cfg || cfg.enabled === false || !st) continue;
      const picked = (set: 'all' | Set<string>, original: string, exposed: string) => set === 'all' || set.has(original) || set.has(exposed);
      for (const live of st.tools) {
        // A tool whose upstream changed it after it was pinned: held, hidden or accepted.
        const tool = agreedItem(settings, server, live);
        if (!tool) continue;
        const override = cfg.tools?.[tool.name];
        const name = names.tools.get(server)?.get(tool.name);
        if (!name || !itemEnabled('tools', cfg, settings.systemConfig, tool.name) || !picked(pick.tools, tool.name, name)) continue;
        const base = { ...tool, name, description: override?.description ?? tool.description };
        const shape = pick.shapes && Object.hasOwn(pick.shapes, tool.name) ? pick.shapes[tool.name] : undefined;
        const exposed: ExposedTool = shape
          ? { name: shape.name ?? name, server, original: tool.name, tool: shapeTool(base, shape.name ?? name, shape), shape }
          : { name, server, original: tool.name, tool: base };
        // A group's new name never shadows another tool of the route.
        if (scope.toolIndex.has(exposed.name)) continue;
        scope.tools.push(exposed);
        scope.toolIndex.set(exposed.name, exposed);
        scope.toolByOriginal.set(`${server}\u0000${tool.name}`, exposed);
      }
      for (const livePrompt of st.prompts) {
        const prompt = agreedItem(settings, server, livePrompt, 'prompts');
        if (!prompt) continue;
        const override = cfg.prompts?.[prompt.name];
        const name = names.prompts.get(server)?.get(prompt.name);
        if (!name || !itemEnabled('prompts', cfg, settings.systemConfig, prompt.name) || !picked(pick.prompts, prompt.name, name)) continue;
        const exposed: ExposedPrompt = { name, server, original: prompt.name, prompt: { ...prompt, name, description: override?.description ?? prompt.description } };
        scope.prompts.push(exposed);
        scope.promptIndex.set(name, exposed);
        scope.promptByOriginal.set(`${server}\u0000${prompt.name}`, exposed);
      }
      for (const resource of st.resources) {
        if (cfg.resources?.[resource.uri]?.enabled === false || !picked(pick.resources, resource.uri, resource.uri)) continue;
        if (scope.resourceIndex.has(resource.uri)) continue;
        scope.resources.push({ server, resource });
        scope.resourceIndex.set(resource.uri, server);
      }
      if (pick.resources === 'all') for (const template of st.resourceTemplates) scope.templates.push({ server, template });
    }
    return scope;
  }
}

function filterScope(base: Scope, tools: Set<string>, prompts: Set<string>, resources: Set<string>): Scope {
  const t = base.tools.filter((x) => tools.has(x.name));
  const p = base.prompts.filter((x) => prompts.has(x.name));
  const r = base.resources.filter((x) => resources.has(x.resource.uri));
  const servers = new Set([...t.map((x) => x.server), ...p.map((x) => x.server), ...r.map((x) => x.server)]);
  return {
    tools: t,
    toolIndex: new Map(t.map((x) => [x.name, x])),
    toolByOriginal: new Map(t.map((x) => [`${x.server}\u0000${x.original}`, x])),
    prompts: p,
    promptIndex: new Map(p.map((x) => [x.name, x])),
    promptByOriginal: new Map(p.map((x) => [`${x.server}\u0000${x.original}`, x])),
    resources: r,
    resourceIndex: new Map(r.map((x) => [x.resource.uri, x.server])),
    templates: base.templates.filter((x) => servers.has(x.server)),
  };
}
