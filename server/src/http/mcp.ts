import { isModernRequest, ModernFront } from '../mcp/modern';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { createSmartServer } from '../mcp/smart-server';
import { NodeStreamableTransport, rpcErrorBody } from '../mcp/http-transport';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Services } from '../services';
import { createAgentServer } from '../mcp/agent-server';
import { findGroup } from '../mcp/catalog';
import type { AgentSession } from '../mcp/sessions';
import { mcpPrincipal } from './mcp-guard';
import { lanePass } from './mcp-lane';
import { grantedScopes } from '../auth/access';
import type { Principal } from '../auth/principal';

type Params = { group?: string };
type Maker = typeof createAgentServer;

function rpcError(reply: FastifyReply, status: number, message: string, code = -32000) {
  return reply.code(status).send(rpcErrorBody(code, message));
}

/** MCP messages carry whole tool results and arguments: at least 4 MiB, whatever BODY_LIMIT says for the REST API. */
export const mcpBodyLimit = (configured: number) => Math.max(configured, 4 * 1024 * 1024);

/** Agent-facing MCP endpoints: streamable HTTP and legacy SSE, at Hub's and MCPHub's paths. */
export async function mcpPlugin(app: FastifyInstance, opts: { services: Services }) {
  const { services } = opts;
  const sessions = services.sessions;

  // MCP clients read JSON-RPC errors; Fastify's own (a body that is not JSON, too
  // large) get that shape here, as on the fast lane.
  app.setErrorHandler((err: FastifyError, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
    if (status >= 500) {
      reply.log.error({ err }, 'MCP route failed');
      return rpcError(reply, status, 'Internal error', -32603);
    }
    const parse = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err instanceof SyntaxError;
    return rpcError(reply, status, parse ? `Parse error: ${err.message}` : err.message, parse ? -32700 : -32600);
  });

  /** Which catalog scope a route serves, or a reply explaining why none. */
  const resolveScope = (group: string | undefined, reply: FastifyReply): string | null => {
    const routing = services.settings.routing();
    if (group === undefined) {
      if (!routing.enableGlobalRoute) return (rpcError(reply, 403, 'The global MCP route is disabled (routing.enableGlobalRoute)'), null);
      return 'all';
    }
    const settings = services.store.get();
    const byId = settings.groups.find((g) => g.id === group);
    if (byId) return `group:${byId.id}`;
    const byName = findGroup(settings, group);
    if (byName) {
      if (!routing.enableGroupNameRoute) return (rpcError(reply, 403, 'Routing by group name is disabled (routing.enableGroupNameRoute)'), null);
      return `group:${byName.id}`;
    }
    if (settings.mcpServers[group]) return `server:${group}`;
    return (rpcError(reply, 404, `No group or server named ${group}`), null);
  };

  // Host and Origin are checked for every route by http/host-guard.ts.
  const admit = async (req: FastifyRequest, reply: FastifyReply, smart: boolean) => {
    if (smart && !services.smart.enabled()) return (rpcError(reply, 404, 'Smart routing is disabled (smartRouting.enabled)'), null);
    const auth = await mcpPrincipal(services, req, reply);
    if (!auth.ok) return null;
    const scopeKey = resolveScope((req.params as Params).group, reply);
    if (!scopeKey) return null;
    // Membership is checked when a session opens; within it, the catalog's per-user
    // filter (cached) keeps what it sees in line with later changes of access.
    const opening = !req.headers['mcp-session-id'] && req.method !== 'DELETE';
    const p = auth.principal;
    if (opening && p) {
      // An MCP session is for calling tools: the same permission REST asks for a call.
      if (!p.permissions.has('tools:execute')) return (rpcError(reply, 403, 'Permission tools:execute required to open an MCP session'), null);
      if (p.routeBound && scopeKey === 'all') return (rpcError(reply, 403, 'This key is limited to some groups or servers: use their routes (/mcp/<group or server>)'), null);
      if (scopeKey !== 'all') {
        const granted = grantedScopes(p, services.store.get());
        const group = scopeKey.startsWith('group:') ? services.store.get().groups.find((g) => g.id === scopeKey.slice(6)) : undefined;
        const open = !p.routeBound && group && (group.visibility === 'public' || group.owner === p.username);
        if (granted && !granted.includes(scopeKey) && !open) return (rpcError(reply, 403, `No access to ${scopeKey.replace(':', ' ')}`), null);
      }
    }
    return { principal: p, scopeKey, credential: auth.ok ? auth.credential : undefined };
  };

  type Admitted = NonNullable<Awaited<ReturnType<typeof admit>>>;

  /**
   * The live session a request names: held here, or restored from its record
   * (opened on another replica, or before a restart), at most once at a time.
   */
  const sessionFor = async (req: FastifyRequest, reply: FastifyReply, admitted: Admitted, smart: boolean): Promise<AgentSession | null> => {
    const id = req.headers['mcp-session-id'] as string;
    const username = admitted.principal?.username ?? null;
    let s = sessions.get(id);
    if (!s && sessions.records) {
      let pending = restoring.get(id);
      if (!pending) {
        pending = restore(id, admitted, smart).finally(() => restoring.delete(id));
        restoring.set(id, pending);
      }
      s = await pending;
    }
    if (!s || s.kind !== 'streamable') return (rpcError(reply, 404, 'Session not found', -32001), null);
    if (s.username !== username) return (rpcError(reply, 403, 'Session belongs to another user'), null);
    return s;
  };

  const modern = new ModernFront(services.agentDeps);
  const restoring = new Map<string, Promise<AgentSession | undefined>>();
  const restore = async (id: string, admitted: Admitted, smart: boolean): Promise<AgentSession | undefined> => {
    const rec = await sessions.records!.find(id).catch(() => undefined);
    if (!rec || rec.scope !== admitted.scopeKey || rec.smart !== smart) return undefined;
    const username = admitted.principal?.username ?? null;
    // Someone else's session is not woken up for them; the caller is told it is not theirs.
    if (rec.username !== username) return { id, kind: 'streamable', username: rec.username } as AgentSession;
    let session: AgentSession | undefined;
    const { server, connect, dispose } = makerFor(smart)(services.agentDeps, rec.scope, () => session?.principal ?? admitted.principal);
    const transport: NodeStreamableTransport = new NodeStreamableTransport({ onsessioninitialized: () => undefined, onsessionclosed: (sid) => void sessions.close(sid) });
    transport.onclose = () => void sessions.close(id);
    await connect(transport);
    await transport.restore(id, rec.init);
    session = { id, kind: 'streamable', transport, server, scopeKey: rec.scope, username, principal: admitted.principal, credential: admitted.credential, lastSeen: Date.now(), openStreams: 0, dispose };
    sessions.add(session);
    return session;
  };

  const makerFor = (smart: boolean): Maker =>
    smart ? (deps, key, who) => createSmartServer({ ...deps, smart: services.smart }, key, who ?? (() => null)) : createAgentServer;

  const streamable = (smart: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const make = makerFor(smart);
    const admitted = await admit(req, reply, smart);
    if (!admitted) return reply;
    const username = admitted.principal?.username ?? null;
    const sessionId = req.headers['mcp-session-id'];
    // Agents of the stateless revision are served per request, on the same routes.
    if (!smart && isModernRequest(req.method, sessionId, req.body)) {
      reply.hijack();
      await modern.serve(req.raw, reply.raw, req.body, { scopeKey: admitted.scopeKey, principal: admitted.principal }, `http://${req.headers.host ?? 'localhost'}${req.url}`);
      return reply;
    }
    if (sessionId) {
      const s = await sessionFor(req, reply, admitted, smart);
      if (!s) return reply;
      s.principal = admitted.principal;
      s.lane = lanePass(services, req.raw, req.routeOptions.url ?? req.url, admitted.principal);
      reply.hijack();
      if (req.method === 'GET') {
        s.openStreams++;
        reply.raw.once('close', () => s.openStreams--);
      }
      await (s.transport as NodeStreamableTransport).handle(req.raw, reply.raw, req.body);
      return reply;
    }
    if (req.method === 'GET') return legacySse(req, reply, admitted.scopeKey, admitted.principal, admitted.credential, make);
    const body = req.body;
    const initializing = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
    if (req.method !== 'POST' || !initializing) {
      return rpcError(reply, 400, 'Bad Request: no valid session id; send initialize first');
    }
    let session: AgentSession | undefined;
    const { server, connect, dispose } = make(services.agentDeps, admitted.scopeKey, () => session?.principal ?? admitted.principal);
    const transport: NodeStreamableTransport = new NodeStreamableTransport({
      onsessioninitialized: (id) => {
        services.audit.record({ event: 'server_access', actor: username, ip: req.ip, success: true, target: admitted.scopeKey, details: { transport: 'streamable-http' } });
        session = { id, kind: 'streamable', transport, server, scopeKey: admitted.scopeKey, username, principal: admitted.principal, credential: admitted.credential, lastSeen: Date.now(), openStreams: 0, dispose };
        sessions.add(session);
        const init = (Array.isArray(body) ? body.find((m) => isInitializeRequest(m)) : body) as JSONRPCMessage & { params?: { protocolVersion?: string } };
        const now = Date.now();
        return sessions.records
          ?.save({ id, scope: admitted.scopeKey, smart, username, protocolVersion: init.params?.protocolVersion ?? null, init, createdAt: now, lastSeen: now })
          .catch((err) => void services.logs.add({ type: 'hub', level: 'warn', message: `Session ${id} could not be recorded: ${(err as Error).message}` }));
      },
      onsessionclosed: (id) => void sessions.close(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) void sessions.close(transport.sessionId);
      else dispose();
    };
    await connect(transport);
    reply.hijack();
    await transport.handle(req.raw, reply.raw, body);
    return reply;
  };

  const legacySse = async (req: FastifyRequest, reply: FastifyReply, scopeKey: string, principal: Principal | null, credential: string | undefined, make: Maker = createAgentServer) => {
    const username = principal?.username ?? null;
    let session: AgentSession | undefined;
    const { server, connect, dispose } = make(services.agentDeps, scopeKey, () => session?.principal ?? principal);
    reply.hijack();
    const transport = new SSEServerTransport(messagesPath, reply.raw);
    services.audit.record({ event: 'server_access', actor: username, ip: req.ip, success: true, target: scopeKey, details: { transport: 'sse' } });
    session = { id: transport.sessionId, kind: 'sse', transport, server, scopeKey, username, principal, credential, lastSeen: Date.now(), openStreams: 1, dispose };
    sessions.add(session);
    const id = session.id;
    reply.raw.once('close', () => {
      session!.openStreams = 0;
      void sessions.close(id);
    });
    await connect(transport);
    return reply;
  };

  const sseRoute = (smart: boolean) => async (req: FastifyRequest, reply: FastifyReply) => {
    const admitted = await admit(req, reply, smart);
    if (!admitted) return reply;
    return legacySse(req, reply, admitted.scopeKey, admitted.principal, admitted.credential, makerFor(smart));
  };

  const messagesPath = '/messages';
  const messages = async (req: FastifyRequest, reply: FastifyReply) => {
    const auth = await mcpPrincipal(services, req, reply);
    if (!auth.ok) return reply;
    const id = (req.query as { sessionId?: string }).sessionId ?? '';
    const s = sessions.get(id);
    if (!s || s.kind !== 'sse') return rpcError(reply, 404, 'Session not found', -32001);
    if (s.username !== (auth.principal?.username ?? null)) return rpcError(reply, 403, 'Session belongs to another user');
    s.principal = auth.principal;
    reply.hijack();
    await (s.transport as SSEServerTransport).handlePostMessage(req.raw, reply.raw, req.body);
    return reply;
  };

  const bodyLimit = mcpBodyLimit(services.config.bodyLimit);
  for (const url of ['/api/mcp', '/api/mcp/group/:group', '/mcp', '/mcp/:group']) {
    app.route({ method: ['GET', 'POST', 'DELETE'], url, bodyLimit, handler: streamable(false) });
  }
  // Smart routing: the same transports, three tools over the whole catalogue of the scope.
  for (const url of ['/api/mcp/$smart', '/api/mcp/$smart/group/:group', '/mcp/$smart', '/mcp/$smart/:group']) {
    app.route({ method: ['GET', 'POST', 'DELETE'], url, bodyLimit, handler: streamable(true) });
  }
  for (const url of ['/api/sse', '/api/sse/group/:group', '/sse', '/sse/:group']) app.get(url, sseRoute(false));
  for (const url of ['/api/sse/$smart', '/sse/$smart', '/sse/$smart/:group']) app.get(url, sseRoute(true));
  for (const url of [messagesPath, '/api/messages']) app.post(url, { bodyLimit }, messages);
}
