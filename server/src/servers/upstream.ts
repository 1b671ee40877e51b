import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerStatus } from '@hub/contract';

/** The agent on whose behalf a call runs: where upstream requests and notifications go back to. */
export type AgentLink = {
  sendRequest: (request: { method: string; params?: Record<string, unknown> }) => Promise<unknown>;
  sendNotification: (notification: { method: string; params?: Record<string, unknown> }) => Promise<void>;
};

/**
 * The agent sessions that use a server, for what an upstream sends outside
 * any call: log messages go to all of them, a `roots/list` request to one.
 */
export type AgentReach = {
  notifyAll(server: string, notification: { method: string; params?: Record<string, unknown> }): void;
  /** Asks one agent that can answer; undefined when none can. */
  ask(server: string, request: { method: string; params?: Record<string, unknown> }, need: 'roots'): Promise<unknown> | undefined;
  /** The server's shared connection was made again (it lost the log level agents set). */
  connected(server: string): void;
};

export type CallOptions = {
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  agent?: AgentLink;
  /**
   * A caller's own session (REST `x-session-id`): HTTP upstreams get a
   * dedicated upstream session per id, so their per-session state carries
   * across calls. stdio servers have one process, shared by design.
   */
  sessionId?: string;
};

export type UpstreamLists = {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
};

export type UpstreamState = UpstreamLists & {
  status: ServerStatus;
  error: string | null;
  /** Set while the server waits for an operator to authorize it. */
  authorizationUrl?: string;
  /** When the lists came from the cache of a previous run, not from the live server. */
  cached: boolean;
  pid?: number;
  reconnects: number;
  /** What the server declared at its last handshake (unknown before the first). */
  capabilities?: ServerCapabilities;
};

/** One upstream server as the hub sees it, whatever its type. */
export interface Upstream {
  readonly name: string;
  readonly state: Readonly<UpstreamState>;
  /** Starts connecting; resolves once the first attempt has settled (never rejects). */
  start(): Promise<void>;
  stop(): Promise<void>;
  callTool(name: string, args: Record<string, unknown>, opts?: CallOptions): Promise<CallToolResult>;
  getPrompt(name: string, args: Record<string, string>, opts?: CallOptions): Promise<GetPromptResult>;
  readResource(uri: string, opts?: CallOptions): Promise<ReadResourceResult>;
  /** Any other request (completion, resource subscriptions), passed through as it is. */
  forward(method: string, params: Record<string, unknown>, opts?: CallOptions): Promise<Record<string, unknown>>;
  /** A liveness probe (MCP ping); throws when the server does not answer in time. */
  ping?(timeoutMs: number): Promise<void>;
  /** A notification from Hub's side (an agent's `notifications/roots/list_changed`). */
  notify?(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Drops the connection and connects again. */
  reconnect?(): Promise<void>;
  /** Completes an OAuth authorization started by this upstream. */
  finishAuth?(code: string): Promise<void>;
}

export type UpstreamEvents = {
  /** Status or lists changed. */
  onChange: (name: string, what: 'status' | 'lists') => void;
  /** The upstream says a resource changed. */
  onResourceUpdated?: (name: string, uri: string) => void;
  /** A line of upstream output or an MCP log message. */
  onLog?: (name: string, level: string, message: string) => void;
};

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly kind: 'not_connected' | 'timeout' | 'upstream' | 'http',
    readonly status?: number,
  ) {
    super(message);
  }
}

/** An error's message, with the network cause's code when there is one (ECONNREFUSED, say). */
export function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ? `${err.message} (${cause.code})` : err.message;
  }
  return String(err);
}

/** An HTTP upstream lost the session or the connection a request relied on (worth one rebuild and retry). */
export function isSessionLost(err: unknown): boolean {
  // The SDK's StreamableHTTPError, told by its shape (its module is loaded only for HTTP servers).
  const code = (err as { code?: unknown }).code;
  if (err instanceof Error && err.message.startsWith('Streamable HTTP error') && (code === 404 || code === 400)) return true;
  const msg = describe(err);
  return /session not found|not connected|fetch failed|ECONNREFUSED|ECONNRESET|SSE stream disconnected|socket hang up/i.test(msg);
}
