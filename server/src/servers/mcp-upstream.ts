import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  GetPromptResultSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type GetPromptResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { inferServerType, type ServerConfig, type ServerType } from '@hub/contract';
import { GroupStdioTransport } from './stdio-transport';
import { fetchLists } from './lists';
import { directRequests } from './direct-requests';
import { Supervisor } from './supervisor';
import { ModernLink, wantsModern } from './modern-link';
import { SessionClients } from './session-clients';
import { describe, isSessionLost, UpstreamError, type AgentLink, type AgentReach, type CallOptions, type Upstream, type UpstreamEvents, type UpstreamLists, type UpstreamState } from './upstream';

export type McpUpstreamOptions = {
  name: string;
  /** Configuration with `${VAR}` already expanded. */
  config: ServerConfig;
  events: UpstreamEvents;
  /** Extra environment for stdio children (package index settings). */
  installEnv: Record<string, string>;
  cached?: UpstreamLists;
  authProvider?: OAuthClientProvider;
  version: string;
  agents?: AgentReach;
};

const DEFAULT_TIMEOUT = 60_000;
const MAX_AUTHORIZATIONS = 3;
/** A server that has not answered `initialize` by then is reported as failing (and retried). */
const HANDSHAKE_MS = 20_000;

/** An upstream spoken to over MCP: stdio, SSE or streamable HTTP. */
export class McpUpstream implements Upstream {
  readonly name: string;
  readonly state: UpstreamState;
  private readonly type: ServerType;
  private client?: Client;
  private transport?: Transport;
  /** Set when the server speaks only the stateless revision: every request goes through it. */
  private modern?: ModernLink;
  private readonly supervisor: Supervisor;
  private readonly agents: AgentLink[] = [];
  private keepAlive?: NodeJS.Timeout;
  private readonly sessionClients = new SessionClients(async () => {
    const c = new Client({ name: 'hub', version: this.opts.version }, { capabilities: {} });
    await c.connect(await this.makeTransport(), { timeout: this.timeout });
    return c;
  });
  /** Authorizations completed since the server last worked: a server that refuses every grant is not asked forever. */
  private authorizations = 0;

  constructor(private readonly opts: McpUpstreamOptions) {
    this.name = opts.name;
    this.type = inferServerType(opts.config);
    const cached = opts.cached;
    this.state = {
      status: 'connecting',
      error: null,
      cached: Boolean(cached),
      tools: cached?.tools ?? [],
      prompts: cached?.prompts ?? [],
      resources: cached?.resources ?? [],
      resourceTemplates: cached?.resourceTemplates ?? [],
      reconnects: 0,
    };
    this.supervisor = new Supervisor({
      connect: () => this.connect(),
      disconnect: () => this.disconnect(),
      onRetry: () => {
        this.state.reconnects++;
      },
    });
  }

  private get timeout(): number {
    return this.opts.config.timeout ?? DEFAULT_TIMEOUT;
  }

  private setStatus(status: UpstreamState['status'], error: string | null = null): void {
    this.state.status = status;
    this.state.error = error;
    if (status !== 'oauth_required') this.state.authorizationUrl = undefined;
    this.opts.events.onChange(this.name, 'status');
  }

  start(): Promise<void> {
    return this.supervisor.start();
  }

  async stop(): Promise<void> {
    await this.sessionClients.closeAll();
    await this.supervisor.stop();
  }

  /** The transport of this server's type; each type's SDK module is loaded by the first server of that type. */
  private async makeTransport(): Promise<Transport> {
    const cfg = this.opts.config;
    const headers = cfg.headers ?? {};
    if (this.type === 'stdio') {
      const { getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const t = new GroupStdioTransport({
        command: cfg.command!,
        args: cfg.args ?? [],
        env: { ...getDefaultEnvironment(), ...this.opts.installEnv, ...(cfg.env ?? {}) },
      });
      t.onstderr = (line) => this.opts.events.onLog?.(this.name, 'info', line);
      return t;
    }
    const url = new URL(cfg.url!);
    if (this.type === 'sse') {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      return new SSEClientTransport(url, {
        requestInit: { headers },
        eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
        authProvider: this.opts.authProvider,
      });
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(url, { requestInit: { headers }, authProvider: this.opts.authProvider });
  }

  /** One connection attempt; throws to let the supervisor retry with backoff. */
  private async connect(): Promise<void> {
    // A server that failed stays `error`, with its reason, while it is retried: an
    // operator sees why it is down, not a "connecting" that never ends.
    this.setStatus(this.state.status === 'error' ? 'error' : 'connecting', this.state.error);
    const transport = await this.makeTransport();
    const client = new Client(
      { name: 'hub', version: this.opts.version },
      // Form elicitation with schema defaults applied to what the agent leaves out (SEP-1034), and URL mode.
      { capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true }, url: {} }, roots: { listChanged: true } } },
    );
    this.installHandlers(client);
    try {
      await client.connect(transport, { timeout: Math.min(this.timeout, HANDSHAKE_MS) });
    } catch (err) {
      await client.close().catch(() => undefined);
      if (this.type === 'streamable-http' && wantsModern(err)) return this.connectModern();
      if (await this.needsAuthorization(err)) {
        this.markAuthorizationUrl(this.state.authorizationUrl);
        throw Object.assign(err as Error, { permanent: true });
      }
      this.setStatus('error', describe(err));
      throw err;
    }
    this.client = client;
    this.transport = transport;
    this.state.capabilities = client.getServerCapabilities();
    this.state.pid = transport instanceof GroupStdioTransport ? transport.pid : undefined;
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.clearKeepAlive();
      this.setStatus('disconnected', this.type === 'stdio' ? 'Process exited' : 'Connection closed');
      this.supervisor.dropped();
    };
    try {
      await this.refreshLists(client);
    } catch (err) {
      // Never leave a half-connected client (and its process) behind.
      this.client = undefined;
      await client.close().catch(() => undefined);
      // A server may answer initialize openly and ask for authorization on the next request.
      if (await this.needsAuthorization(err)) {
        this.markAuthorizationUrl(this.state.authorizationUrl);
        throw Object.assign(err as Error, { permanent: true });
      }
      this.setStatus('error', `Listing failed: ${describe(err)}`);
      throw err;
    }
    this.setStatus('connected');
    this.authorizations = 0;
    this.startKeepAlive(client);
    this.opts.agents?.connected(this.name);
  }

  /** A server of the stateless revision refused the handshake: the same server through SDK v2. */
  private async connectModern(): Promise<void> {
    let link: ModernLink;
    try {
      link = await ModernLink.open(
        new URL(this.opts.config.url!),
        this.opts.config.headers ?? {},
        this.timeout,
        this.opts.version,
        () => void this.modern?.lists(this.timeout).then((lists) => (Object.assign(this.state, lists), this.opts.events.onChange(this.name, 'lists'))).catch(() => undefined),
        () => {
          if (this.modern !== link) return;
          this.modern = undefined;
          this.setStatus('disconnected', 'Connection closed');
          this.supervisor.dropped();
        },
      );
      Object.assign(this.state, await link.lists(this.timeout), { cached: false, capabilities: link.capabilities });
    } catch (err) {
      this.setStatus('error', describe(err));
      throw err;
    }
    this.modern = link;
    this.opts.events.onChange(this.name, 'lists');
    this.setStatus('connected');
  }

  /** The SDK gave up for want of authorization (it has already saved the authorization URL). */
  private async needsAuthorization(err: unknown): Promise<boolean> {
    return Boolean(this.opts.authProvider) && err instanceof (await import('@modelcontextprotocol/sdk/client/auth.js')).UnauthorizedError;
  }

  private async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    const modern = this.modern;
    this.modern = undefined;
    await modern?.close().catch(() => undefined);
    this.clearKeepAlive();
    await client?.close().catch(() => undefined);
  }

  private startKeepAlive(client: Client): void {
    const interval = this.opts.config.keepAliveInterval ?? (this.type === 'sse' ? 60_000 : 0);
    if (!interval) return;
    this.keepAlive = setInterval(() => {
      client.ping({ timeout: Math.min(interval, 10_000) }).catch(() => {
        if (this.client === client) void client.close();
      });
    }, interval);
    this.keepAlive.unref();
  }

  private clearKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }

  private async refreshLists(client: Client): Promise<void> {
    const lists = await fetchLists(client, this.timeout);
    Object.assign(this.state, lists, { cached: false });
    this.opts.events.onChange(this.name, 'lists');
  }

  private installHandlers(client: Client): void {
    const refresh = () => void this.refreshLists(client).catch((err) => this.opts.events.onLog?.(this.name, 'warn', `refresh failed: ${describe(err)}`));
    client.setNotificationHandler(ToolListChangedNotificationSchema, refresh);
    client.setNotificationHandler(PromptListChangedNotificationSchema, refresh);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, refresh);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void this.opts.events.onResourceUpdated?.(this.name, n.params.uri));
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      const data = typeof n.params.data === 'string' ? n.params.data : JSON.stringify(n.params.data);
      this.opts.events.onLog?.(this.name, n.params.level, data);
      // During a call, to the agent that made it; otherwise to every agent using this server.
      const agent = this.currentAgent();
      if (agent) await agent.sendNotification(n as never).catch(() => undefined);
      else this.opts.agents?.notifyAll(this.name, n as never);
    });
    // A URL-mode elicitation finished: the agent that was shown the URL (or, outside a call, every agent using this server) hears it.
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (n) => {
      const agent = this.currentAgent();
      if (agent) await agent.sendNotification(n as never).catch(() => undefined);
      else this.opts.agents?.notifyAll(this.name, n as never);
    });
    // Requests from the upstream go back to the agent whose call is running.
    const forward = async (request: { method: string; params?: Record<string, unknown> }) => {
      const agent = this.currentAgent();
      if (!agent) throw new Error(`No agent is connected to answer ${request.method}`);
      return (await agent.sendRequest(request)) as never;
    };
    client.setRequestHandler(CreateMessageRequestSchema, (req) => forward(req as never));
    client.setRequestHandler(ElicitRequestSchema, (req) => forward(req as never));
    // Outside a call the roots of the agent most recently active on this server answer.
    client.setRequestHandler(ListRootsRequestSchema, async (req) => {
      if (this.currentAgent()) return forward(req as never);
      return ((await this.opts.agents?.ask(this.name, req as never, 'roots')) ?? { roots: [] }) as never;
    });
  }

  private currentAgent(): AgentLink | undefined {
    return this.agents[this.agents.length - 1];
  }

  private async ready(signal?: AbortSignal): Promise<Client> {
    if (this.client && this.state.status === 'connected') return this.client;
    await this.supervisor.waitConnected(this.timeout, signal).catch(() => undefined);
    if (!this.client) throw new UpstreamError(`Server ${this.name} is not connected: ${this.state.error ?? this.state.status}`, 'not_connected');
    return this.client;
  }

  /** Runs a request with the agent attached; an HTTP session that vanished is rebuilt and the request sent once more. */
  private async run<T>(opts: CallOptions | undefined, send: (client: Client) => Promise<T>): Promise<T> {
    const agent = opts?.agent;
    if (agent) this.agents.push(agent);
    try {
      if (opts?.sessionId && this.type !== 'stdio') return await send(await this.sessionClients.get(opts.sessionId));
      const client = await this.ready(opts?.signal);
      try {
        return await send(client);
      } catch (err) {
        if (this.type === 'stdio' || !isSessionLost(err) || opts?.signal?.aborted) throw err;
        await this.supervisor.reconnectNow();
        return await send(await this.ready(opts?.signal));
      }
    } finally {
      if (agent) this.agents.splice(this.agents.lastIndexOf(agent), 1);
    }
  }

  private requestOptions(opts?: CallOptions) {
    return {
      signal: opts?.signal,
      timeout: this.timeout,
      resetTimeoutOnProgress: true,
      onprogress: opts?.onprogress,
    };
  }

  callTool(name: string, args: Record<string, unknown>, opts?: CallOptions): Promise<CallToolResult> {
    if (this.modern) return this.modern.callTool(name, args, opts, this.timeout);
    const params = { name, arguments: args };
    return this.run(opts, (c) => {
      // Results pass through to the agent as the upstream sent them. Without progress to
      // relay, the call skips the SDK's Protocol (the hot path); with it, the SDK tracks the token.
      const direct = opts?.onprogress ? undefined : directRequests(c);
      if (direct) return direct.request('tools/call', params, { signal: opts?.signal, timeout: this.timeout }) as Promise<CallToolResult>;
      return c.request({ method: 'tools/call', params }, ResultSchema, this.requestOptions(opts)) as Promise<CallToolResult>;
    });
  }

  getPrompt(name: string, args: Record<string, string>, opts?: CallOptions): Promise<GetPromptResult> {
    if (this.modern) return this.modern.getPrompt(name, args, opts, this.timeout);
    return this.run(opts, (c) =>
      c.request({ method: 'prompts/get', params: { name, arguments: args } }, GetPromptResultSchema, this.requestOptions(opts)),
    );
  }

  readResource(uri: string, opts?: CallOptions): Promise<ReadResourceResult> {
    if (this.modern) return this.modern.readResource(uri, opts, this.timeout);
    return this.run(opts, (c) =>
      c.request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema, this.requestOptions(opts)),
    );
  }

  forward(method: string, params: Record<string, unknown>, opts?: CallOptions): Promise<Record<string, unknown>> {
    if (this.modern) return this.modern.forward(method, params, opts, this.timeout);
    return this.run(opts, (c) => c.request({ method, params } as never, ResultSchema, this.requestOptions(opts)));
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.client?.notification({ method, ...(params ? { params } : {}) } as never);
  }

  async ping(timeoutMs: number): Promise<void> {
    // The stateless revision has no ping: asking what the server offers shows it is there.
    if (this.modern) return void (await this.modern.forward('server/discover', {}, undefined, timeoutMs));
    if (!this.client) throw new Error('not connected');
    await this.client.ping({ timeout: timeoutMs });
  }

  reconnect(): Promise<void> {
    this.authorizations = 0;
    return this.supervisor.reconnectNow();
  }

  async finishAuth(code: string): Promise<void> {
    const transport = (await this.makeTransport()) as StreamableHTTPClientTransport | SSEClientTransport;
    await transport.finishAuth(code);
    this.authorizations++;
    await this.supervisor.reconnectNow();
  }

  markAuthorizationUrl(url: string | undefined): void {
    if (this.authorizations >= MAX_AUTHORIZATIONS) {
      this.setStatus('error', `Authorization was granted ${this.authorizations} times and the server still refuses access (scopes it asks for may not be granted); reconnect to try again`);
      return;
    }
    this.state.authorizationUrl = url;
    this.setStatus('oauth_required', 'Authorization required');
  }
}
