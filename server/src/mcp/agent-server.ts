import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  ResultSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  type CallToolResult,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { scopeOps } from './scope-ops';
import { shapedArgs } from './shaping';
import { capabilitiesFor, scopeServers } from './capabilities';
import type { TaskRouter } from './tasks';
import type { Catalog, Scope } from './catalog';
import type { ServerRegistry } from '../servers/registry';
import type { AgentLink, CallOptions } from '../servers/upstream';
import type { EventBus } from '../events/bus';
import { describe } from '../servers/upstream';
import type { Principal } from '../auth/principal';
import type { Activity } from '../monitoring/activity';
import type { Redactor } from '../monitoring/redact';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { answerToolCalls, type CallExtra } from './fast-call';
import { severity, type AgentDirectory, type AgentEntry } from './agent-directory';

export type AgentServerDeps = {
  catalog: Catalog;
  registry: ServerRegistry;
  bus: EventBus;
  activity: Activity;
  redactor: Redactor;
  version: string;
  /** Where upstreams reach agents outside calls (absent in tools that build a bare server). */
  agents?: AgentDirectory;
  /** Items per page of Hub's own lists (default 1000). */
  pageSize?: number;
  /** Tasks agents started on upstreams (absent: task-augmented calls are not offered). */
  tasks?: TaskRouter;
};

/** The SDK's request-handler extra as a tool call uses it; the fast path builds the same without `_meta`. */
type Extra = CallExtra & { _meta?: { progressToken?: string | number } };

/**
 * Options that tie an upstream call to the agent that made it. Notifications
 * (progress, logs) are sent in order and awaited before the result goes out:
 * a progress update that trailed the result would be dropped by the client.
 */
function callOptions(extra: Extra): CallOptions & { flushed: () => Promise<void> } {
  let chain: Promise<void> | null = null;
  const notify = (n: { method: string; params?: Record<string, unknown> }) => {
    chain = (chain ?? Promise.resolve()).then(() => extra.sendNotification(n as never)).catch(() => undefined);
    return chain;
  };
  const token = extra._meta?.progressToken;
  return {
    signal: extra.signal,
    agent: { sendRequest: (request) => extra.sendRequest(request as never, ResultSchema as never), sendNotification: notify },
    onprogress: token === undefined ? undefined : (p) => void notify({ method: 'notifications/progress', params: { ...p, progressToken: token } }),
    // The SDK client handles a notification a microtask late and drops a progress update that
    // arrives in the same read as the result, so the result leaves in a later write.
    flushed: async () => {
      if (!chain) return;
      await chain;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/**
 * An upstream's JSON-RPC error as the agent should get it: its own code, message
 * and data, once (an McpError's message already carries "MCP error <code>: ",
 * which the SDK would send, and the agent's SDK prefix again). Other errors as they are.
 */
function passThrough(err: unknown): unknown {
  if (!(err instanceof McpError)) return err;
  const prefix = `MCP error ${err.code}: `;
  const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return Object.assign(new Error(message), { code: err.code, ...(err.data !== undefined ? { data: err.data } : {}) });
}

/** Runs an upstream call for an agent and returns once its notifications went out. */
export async function forAgent<T>(extra: unknown, run: (opts: CallOptions) => Promise<T>): Promise<T> {
  const opts = callOptions(extra as Extra);
  try {
    return await run(opts);
  } catch (err) {
    throw passThrough(err);
  } finally {
    await opts.flushed();
  }
}

/**
 * One tool call of an agent, on the hot path: permission, scope lookup (a
 * map read), the upstream call with the agent attached, and the activity
 * record. Errors of the tool come back as tool results, protocol errors as errors.
 */
export async function callExposed(
  deps: AgentServerDeps,
  scope: Scope,
  caller: Principal | null,
  name: string,
  args: Record<string, unknown>,
  extra: unknown,
): Promise<CallToolResult> {
  if (caller && !caller.permissions.has('tools:execute')) {
    throw new McpError(ErrorCode.InvalidRequest, `Permission tools:execute required to call ${name}`);
  }
  const exposed = scope.toolIndex.get(name);
  if (!exposed) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
  let upstream;
  try {
    upstream = deps.registry.upstreamFor(exposed.server, caller);
  } catch (err) {
    // A missing per-caller secret: a tool error the agent (and its user) can act on.
    return { isError: true, content: [{ type: 'text', text: (err as Error).message }] };
  }
  if (!upstream) return { isError: true, content: [{ type: 'text', text: `Server ${exposed.server} is not running` }] };
  if (!deps.activity.begin()) return { isError: true, content: [{ type: 'text', text: 'Hub is shutting down; try again shortly' }] };
  const started = performance.now();
  const done = (ok: boolean, error?: string) =>
    deps.activity.record({ server: exposed.server, tool: exposed.original, duration: performance.now() - started, ok, user: caller?.username, error, requestId: String((extra as { requestId?: unknown }).requestId ?? '') });
  try {
    const callArgs = exposed.shape ? shapedArgs(exposed.shape, args) : args;
    const result = await forAgent(extra, (opts) => upstream.callTool(exposed.original, callArgs, opts));
    done(!result.isError, result.isError ? 'tool returned an error' : undefined);
    return result;
  } catch (err) {
    done(false, describe(err));
    // Protocol errors stay protocol errors (Hub's own timeout is -32001, Request timed out);
    // a server that went away mid-call, or could not be reached, is the tool's failure.
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'number' && code !== ErrorCode.ConnectionClosed) throw err;
    return { isError: true, content: [{ type: 'text', text: `Error calling ${name}: ${deps.redactor.forCaller(describe(err))}` }] };
  }
}

const emptyCompletion = { completion: { values: [], total: 0, hasMore: false } };

function signatures(scope: Scope | null): [tools: string, prompts: string, resources: string] {
  if (!scope) return ['', '', ''];
  return [
    scope.tools.map((t) => `${t.name}\u0001${t.tool.description ?? ''}`).join('\u0002'),
    scope.prompts.map((p) => `${p.name}\u0001${p.prompt.description ?? ''}`).join('\u0002'),
    scope.resources.map((r) => r.resource.uri).join('\u0002'),
  ];
}

/** An agent session's MCP server; `connect` attaches it to the session's transport. */
export type AgentServer = { server: Server; connect: (transport: Transport) => Promise<void>; dispose: () => void };

/** The MCP server one agent session talks to: the catalog of its scope, forwarded to upstreams. */
export function createAgentServer(
  deps: AgentServerDeps,
  scopeKey: string,
  principal: () => Principal | null = () => null,
): AgentServer {
  const { catalog, registry } = deps;
  const capabilities = capabilitiesFor(deps, catalog.scopeFor(scopeKey, principal()));
  const server = new Server({ name: 'hub', version: deps.version }, { capabilities });
  const ops = scopeOps(deps, scopeKey, principal, forAgent);
  const { scope, need, resourceOwner } = ops;

  server.setRequestHandler(ListToolsRequestSchema, (req) => ops.listTools(req.params?.cursor));

  server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
    req.params.task && deps.tasks ? callAsTask(req.params, extra) : callExposed(deps, scope(), principal(), req.params.name, req.params.arguments ?? {}, extra),
  );

  // Tasks: started through a task-augmented tools/call, then polled, read, listed and
  // cancelled by Hub's task id, on the upstream that runs them, by their owner only.
  const owner = (extra: { sessionId?: string }) => principal()?.username ?? `session:${extra.sessionId ?? ''}`;
  const callAsTask = async (params: { name: string; arguments?: Record<string, unknown>; task?: unknown }, extra: { sessionId?: string }) => {
    need('tools:execute');
    const exposed = scope().toolIndex.get(params.name);
    if (!exposed) throw new McpError(ErrorCode.InvalidParams, `Tool ${params.name} not found`);
    const upstream = ops.upstreamOf(exposed.server);
    if (!upstream) throw new McpError(ErrorCode.InternalError, `Server ${exposed.server} is not running`);
    const result = await forAgent(extra, (opts) => upstream.forward('tools/call', { name: exposed.original, arguments: params.arguments ?? {}, task: params.task }, opts));
    return deps.tasks!.created(exposed.server, owner(extra), result) as never;
  };
  const onTask = async (method: string, taskId: unknown, extra: { sessionId?: string }) => {
    need('tools:execute');
    const t = deps.tasks!.find(taskId, owner(extra));
    const upstream = scopeServers(scope()).has(t.server) ? ops.upstreamOf(t.server) : undefined;
    if (!upstream) throw new McpError(ErrorCode.InvalidParams, `Task ${String(taskId)} not found`);
    return deps.tasks!.translate(t.server, await forAgent(extra, (opts) => upstream.forward(method, { taskId: t.upstreamId }, opts))) as never;
  };
  if (capabilities.tasks) {
    server.setRequestHandler(GetTaskRequestSchema, (req, extra) => onTask('tasks/get', req.params.taskId, extra));
    server.setRequestHandler(GetTaskPayloadRequestSchema, (req, extra) => onTask('tasks/result', req.params.taskId, extra));
    server.setRequestHandler(CancelTaskRequestSchema, (req, extra) => onTask('tasks/cancel', req.params.taskId, extra));
    server.setRequestHandler(ListTasksRequestSchema, async (_req, extra) => {
      need('tools:execute');
      const tasks: unknown[] = [];
      for (const [name, ids] of deps.tasks!.owned(owner(extra))) {
        const upstream = scopeServers(scope()).has(name) ? ops.upstreamOf(name) : undefined;
        const listed = await upstream?.forward('tasks/list', {}).catch(() => undefined);
        for (const t of (listed?.tasks ?? []) as Array<{ taskId: string }>) if (ids.has(t.taskId)) tasks.push(deps.tasks!.translate(name, t));
      }
      return { tasks } as never;
    });
  }

  server.setRequestHandler(ListPromptsRequestSchema, (req) => ops.listPrompts(req.params?.cursor));
  server.setRequestHandler(GetPromptRequestSchema, (req, extra) => ops.getPrompt(req.params.name, req.params.arguments ?? {}, extra));
  server.setRequestHandler(ListResourcesRequestSchema, (req) => ops.listResources(req.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) => ops.listTemplates(req.params?.cursor));
  server.setRequestHandler(ReadResourceRequestSchema, (req, extra) => ops.readResource(req.params.uri, extra));

  // Subscriptions are kept per agent: the upstream is subscribed, and its updates go to the agents that asked.
  const subscribed = new Set<string>();
  server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
    need('servers:execute');
    await forAgent(extra, (opts) => resourceOwner(req.params.uri).forward('resources/subscribe', { uri: req.params.uri }, opts));
    subscribed.add(req.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req, extra) => {
    subscribed.delete(req.params.uri);
    await forAgent(extra, (opts) => resourceOwner(req.params.uri).forward('resources/unsubscribe', { uri: req.params.uri }, opts)).catch(() => undefined);
    return {};
  });
  const offUpdates = deps.bus.subscribe('resource.updated', ({ uri }) => {
    if (subscribed.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => undefined);
  });

  if (capabilities.completions) server.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
    const ref = req.params.ref;
    need(ref.type === 'ref/prompt' ? 'prompts:read' : 'servers:read');
    const opts = callOptions(extra as Extra);
    if (ref.type === 'ref/prompt') {
      const p = scope().promptIndex.get(ref.name);
      const upstream = p ? ops.upstreamOf(p.server) : undefined;
      if (!p || !upstream) throw new McpError(ErrorCode.InvalidParams, `Prompt ${ref.name} not found`);
      return upstream.forward('completion/complete', { ...req.params, ref: { ...ref, name: p.original } }, opts).catch(() => emptyCompletion);
    }
    return resourceOwner(ref.uri).forward('completion/complete', req.params, opts).catch(() => emptyCompletion);
  });

  // This session's place among the agents upstreams reach outside calls.
  const entry: AgentEntry = {
    link: {
      sendRequest: (request) => server.request(request as never, ResultSchema as never),
      sendNotification: (n) => server.notification(n as never),
    },
    roots: false,
    active: Date.now(),
  };
  const place = () => deps.agents?.place(entry, scopeServers(catalog.scopeFor(scopeKey, principal())));
  server.oninitialized = () => {
    entry.roots = Boolean(server.getClientCapabilities()?.roots);
    place();
  };
  // The level goes to the upstreams (shared: the most verbose any agent asked for); Hub
  // filters what leaves for this agent (see connect).
  server.setRequestHandler(SetLevelRequestSchema, (req) => {
    if (deps.agents) deps.agents.setLevel(entry, req.params.level);
    else entry.level = req.params.level;
    return {};
  });
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    for (const name of scopeServers(catalog.scopeFor(scopeKey, principal()))) void registry.upstream(name)?.notify?.('notifications/roots/list_changed').catch(() => undefined);
  });

  // Tell the agent only when what it can see really changed.
  let last = signatures(catalog.scopeFor(scopeKey, principal()));
  const off = deps.bus.subscribe('catalog.changed', () => {
    const now = signatures(catalog.scopeFor(scopeKey, principal()));
    const [tools, prompts, resources] = now.map((sig, i) => sig !== last[i]);
    last = now;
    if (tools || prompts || resources) place();
    if (tools) void server.sendToolListChanged().catch(() => undefined);
    if (prompts) void server.sendPromptListChanged().catch(() => undefined);
    if (resources) void server.sendResourceListChanged().catch(() => undefined);
  });
  return {
    server,
    connect: async (transport) => {
      // Log messages below the level this agent set are not sent to it, whoever sent them.
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        const m = message as { method?: string; params?: { level?: string } };
        if (entry.level && m.method === 'notifications/message' && severity(m.params?.level ?? 'info') < severity(entry.level)) return Promise.resolve();
        return send(message, options);
      };
      await server.connect(transport);
      answerToolCalls(server, transport, (name, args, extra) => {
        entry.active = Date.now();
        return callExposed(deps, scope(), principal(), name, args, extra);
      });
    },
    dispose: () => {
      off();
      offUpdates();
      deps.agents?.remove(entry);
    },
  };
}
