import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Permission } from '@hub/contract';
import type { Principal } from '../auth/principal';
import { callExposed, forAgent, type AgentServerDeps } from './agent-server';
import { page } from './paging';
import { ParkedCalls } from './mrtr';

/** The first revision without sessions (2026-07-28): its requests carry their version in `_meta`. */
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const SESSIONFUL = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);

/** A request of a stateless-revision agent: no session, and its version claimed in the body's `_meta`. */
export function isModernRequest(method: string, sessionId: unknown, body: unknown): boolean {
  if (method !== 'POST' || sessionId || !body || typeof body !== 'object' || Array.isArray(body)) return false;
  const version = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[VERSION_KEY];
  return typeof version === 'string' && !SESSIONFUL.has(version);
}

type Caller = { scopeKey: string; principal: Principal | null };
type V2 = typeof import('@modelcontextprotocol/server');
type Handler = ReturnType<V2['createMcpHandler']>;

/**
 * Hub's face to agents speaking the stateless revision (2026-07-28), on the
 * same routes as older agents: `server/discover`, lists, calls, prompts,
 * resources and `subscriptions/listen` for list changes, served per request
 * by SDK v2 (loaded on the first such request) over the same catalogue,
 * permissions and upstream calls as sessions of older agents.
 */
export class ModernFront {
  private handler?: Promise<Handler>;
  private readonly parked = new ParkedCalls();

  constructor(private readonly deps: AgentServerDeps) {}

  private load(): Promise<Handler> {
    this.handler ??= (async () => {
      const v2 = await import('@modelcontextprotocol/server');
      const handler = v2.createMcpHandler((ctx) => this.server(v2, ctx.authInfo?.extra?.caller as Caller), { legacy: 'reject' });
      // Agents listening for changes hear them as older agents do.
      this.deps.bus.subscribe('catalog.changed', () => {
        handler.notify.toolsChanged();
        handler.notify.promptsChanged();
        handler.notify.resourcesChanged();
      });
      this.deps.bus.subscribe('resource.updated', ({ uri }) => handler.notify.resourceUpdated(uri));
      return handler;
    })();
    return this.handler;
  }

  /** Serves one request already admitted by the MCP route (auth, Host, scope). */
  async serve(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Caller, url: string): Promise<void> {
    const handler = await this.load();
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const request = new Request(url, { method: 'POST', headers, body: JSON.stringify(body), signal: abort.signal });
    const answer = await handler.fetch(request, { parsedBody: body, authInfo: { token: '', clientId: caller.principal?.username ?? 'anonymous', scopes: [], extra: { caller } } });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (!answer.body) return void res.end();
    Readable.fromWeb(answer.body as never).on('error', () => res.end()).pipe(res);
  }

  private server(v2: V2, caller: Caller) {
    const { catalog, registry, version } = this.deps;
    const server = new v2.Server({ name: 'hub', version }, { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true } } });
    const scope = () => {
      const s = catalog.scopeFor(caller.scopeKey, caller.principal);
      if (!s) throw new McpError(ErrorCode.InvalidRequest, `Group or server ${caller.scopeKey.replace(/^\w+:/, '')} no longer exists`);
      return s;
    };
    const may = (perm: Permission) => !caller.principal || caller.principal.permissions.has(perm);
    const need = (perm: Permission) => {
      if (!may(perm)) throw new McpError(ErrorCode.InvalidRequest, `Permission ${perm} required`);
    };
    const size = this.deps.pageSize ?? 1000;
    const extraOf = (ctx: { mcpReq: { id: string | number; signal: AbortSignal; notify: (n: never) => Promise<void>; send: (r: never) => Promise<unknown> } }) => ({
      requestId: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
      sendNotification: (n: never) => ctx.mcpReq.notify(n),
      sendRequest: (r: never) => ctx.mcpReq.send(r),
    });
    const owner = (uri: string) => {
      const s = scope();
      const name = s.resourceIndex.get(uri) ?? s.templates.find((t) => uri.startsWith(t.template.uriTemplate.split('{')[0]!))?.server;
      const upstream = name ? registry.upstream(name) : undefined;
      if (!upstream) throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
      return upstream;
    };

    server.setRequestHandler('tools/list', (r) => {
      const { items, nextCursor } = page(may('tools:read') ? scope().tools : [], r.params?.cursor, size);
      return { tools: items.map((t) => t.tool), ...(nextCursor ? { nextCursor } : {}) } as never;
    });
    // What an upstream asks its agent mid-call comes back to this agent as input_required rounds.
    server.setRequestHandler('tools/call', (r, ctx) => {
      const who = caller.principal?.username ?? 'anonymous';
      const mcpReq = ctx.mcpReq as unknown as { id: string | number; requestState?: () => unknown; inputResponses?: Record<string, unknown> };
      const state = mcpReq.requestState?.();
      if (typeof state === 'string' && state) return this.parked.resume(who, state, mcpReq.inputResponses) as never;
      return this.parked.start(who, (ask, signal) =>
        callExposed(this.deps, scope(), caller.principal, r.params.name, r.params.arguments ?? {}, { requestId: mcpReq.id, signal, sendNotification: async () => undefined, sendRequest: ask as never }),
      ) as never;
    });
    server.setRequestHandler('prompts/list', (r) => {
      const { items, nextCursor } = page(may('prompts:read') ? scope().prompts : [], r.params?.cursor, size);
      return { prompts: items.map((p) => p.prompt), ...(nextCursor ? { nextCursor } : {}) } as never;
    });
    server.setRequestHandler('prompts/get', (r, ctx) => {
      need('prompts:execute');
      const exposed = scope().promptIndex.get(r.params.name);
      const upstream = exposed ? registry.upstream(exposed.server) : undefined;
      if (!exposed || !upstream) throw new McpError(ErrorCode.InvalidParams, `Prompt ${r.params.name} not found`);
      return forAgent(extraOf(ctx as never), (opts) => upstream.getPrompt(exposed.original, (r.params.arguments ?? {}) as Record<string, string>, opts)) as never;
    });
    server.setRequestHandler('resources/list', (r) => {
      const { items, nextCursor } = page(may('servers:read') ? scope().resources : [], r.params?.cursor, size);
      return { resources: items.map((x) => x.resource), ...(nextCursor ? { nextCursor } : {}) } as never;
    });
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: may('servers:read') ? scope().templates.map((t) => t.template) : [] }) as never);
    server.setRequestHandler('resources/read', (r, ctx) => {
      need('servers:execute');
      return forAgent(extraOf(ctx as never), (opts) => owner(r.params.uri).readResource(r.params.uri, opts)) as never;
    });
    return server;
  }
}
