import { ErrorCode, McpError, type GetPromptResult, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Permission } from '@hub/contract';
import type { Principal } from '../auth/principal';
import type { Scope } from './catalog';
import type { AgentServerDeps } from './agent-server';
import type { CallOptions } from '../servers/upstream';
import { page } from './paging';

type Run<T> = (opts: CallOptions) => Promise<T>;
type ForAgent = <T>(extra: unknown, run: Run<T>) => Promise<T>;

/**
 * What an agent may do on one route, whichever protocol generation it speaks:
 * the route's scope as the caller sees it, the permission checks REST applies
 * to the same things, Hub's own paged lists, and prompt and resource reads
 * routed to their upstream. Both agent servers (sessionful and stateless) use it.
 */
export function scopeOps(deps: AgentServerDeps, scopeKey: string, principal: () => Principal | null, forAgent: ForAgent) {
  const scope = (): Scope => {
    const s = deps.catalog.scopeFor(scopeKey, principal());
    if (!s) throw new McpError(ErrorCode.InvalidRequest, `Group or server ${scopeKey.replace(/^\w+:/, '')} no longer exists`);
    return s;
  };
  // Lists need the read permission (else they are empty), prompts/get prompts:execute, reading resources servers:execute.
  const may = (perm: Permission) => {
    const p = principal();
    return !p || p.permissions.has(perm);
  };
  const need = (perm: Permission) => {
    if (!may(perm)) throw new McpError(ErrorCode.InvalidRequest, `Permission ${perm} required`);
  };
  const size = deps.pageSize ?? 1000;
  const list = <T, R, K extends string>(key: K, perm: Permission, items: (s: Scope) => T[], view: (t: T) => R, cursor?: string) => {
    const { items: got, nextCursor } = page(may(perm) ? items(scope()) : [], cursor, size);
    return { [key]: got.map(view), ...(nextCursor ? { nextCursor } : {}) } as Record<K, R[]> & { nextCursor?: string };
  };
  // The caller's connection to a server (its own lane when the server uses per-caller secrets).
  const upstreamOf = (server: string) => {
    try {
      return deps.registry.upstreamFor(server, principal());
    } catch (err) {
      throw new McpError(ErrorCode.InvalidRequest, (err as Error).message);
    }
  };
  const resourceOwner = (uri: string) => {
    const s = scope();
    const owner = s.resourceIndex.get(uri) ?? s.templates.find((t) => uri.startsWith(t.template.uriTemplate.split('{')[0]!))?.server;
    const upstream = owner ? upstreamOf(owner) : undefined;
    if (!upstream) throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
    return upstream;
  };
  return {
    scope,
    may,
    need,
    upstreamOf,
    resourceOwner,
    listTools: (cursor?: string) => list('tools', 'tools:read', (s) => s.tools, (t) => t.tool, cursor),
    listPrompts: (cursor?: string) => list('prompts', 'prompts:read', (s) => s.prompts, (p) => p.prompt, cursor),
    listResources: (cursor?: string) => list('resources', 'servers:read', (s) => s.resources, (r) => r.resource, cursor),
    listTemplates: (cursor?: string) => list('resourceTemplates', 'servers:read', (s) => s.templates, (t) => t.template, cursor),
    getPrompt(name: string, args: Record<string, string>, extra: unknown): Promise<GetPromptResult> {
      need('prompts:execute');
      const exposed = scope().promptIndex.get(name);
      if (!exposed) throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
      const upstream = upstreamOf(exposed.server);
      if (!upstream) throw new McpError(ErrorCode.InternalError, `Server ${exposed.server} is not running`);
      return forAgent(extra, (opts) => upstream.getPrompt(exposed.original, args, opts));
    },
    readResource(uri: string, extra: unknown): Promise<ReadResourceResult> {
      need('servers:execute');
      return forAgent(extra, (opts) => resourceOwner(uri).readResource(uri, opts));
    },
  };
}
