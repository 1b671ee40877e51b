import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Principal } from '../auth/principal';
import { callExposed, forAgent, type AgentServerDeps } from './agent-server';
import { scopeOps } from './scope-ops';
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
    const { version } = this.deps;
    const server = new v2.Server({ name: 'hub', version }, { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true } } });
    const ops = scopeOps(this.deps, caller.scopeKey, () => caller.principal, forAgent);
    const { scope } = ops;

    server.setRequestHandler('tools/list', (r) => ops.listTools(r.params?.cursor) as never);
    // What an upstream asks its agent mid-request (tools, prompts, resources) comes back to this agent as input_required rounds.
    const rounds = <T>(ctx: unknown, run: (extra: unknown) => Promise<T>) => {
      const who = caller.principal?.username ?? 'anonymous';
      const mcpReq = (ctx as { mcpReq: { id: string | number; requestState?: () => unknown; inputResponses?: Record<string, unknown> } }).mcpReq;
      const state = mcpReq.requestState?.();
      if (typeof state === 'string' && state) return this.parked.resume(who, state, mcpReq.inputResponses) as never;
      return this.parked.start(who, (ask, signal) => run({ requestId: mcpReq.id, signal, sendNotification: async () => undefined, sendRequest: ask })) as never;
    };
    server.setRequestHandler('tools/call', (r, ctx) => rounds(ctx, (extra) => callExposed(this.deps, scope(), caller.principal, r.params.name, r.params.arguments ?? {}, extra)));
    server.setRequestHandler('prompts/list', (r) => ops.listPrompts(r.params?.cursor) as never);
    server.setRequestHandler('prompts/get', (r, ctx) => rounds(ctx, (extra) => ops.getPrompt(r.params.name, (r.params.arguments ?? {}) as Record<string, string>, extra)));
    server.setRequestHandler('resources/list', (r) => ops.listResources(r.params?.cursor) as never);
    server.setRequestHandler('resources/templates/list', (r) => ops.listTemplates(r.params?.cursor) as never);
    server.setRequestHandler('resources/read', (r, ctx) => rounds(ctx, (extra) => ops.readResource(r.params.uri, extra)));
    return server;
  }
}
