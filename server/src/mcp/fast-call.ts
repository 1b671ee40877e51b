import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type Params = { name?: unknown; arguments?: unknown; task?: unknown; _meta?: { progressToken?: unknown } };
type Request = { id: string | number; method: string; params?: Params };

/** The part of the SDK's request-handler `extra` a tool call uses. */
export type CallExtra = {
  requestId: string | number;
  signal: AbortSignal;
  sendNotification: (n: never) => Promise<void>;
  sendRequest: (r: never, schema: never) => Promise<unknown>;
};

export type CallHandler = (name: string, args: Record<string, unknown>, extra: CallExtra) => Promise<CallToolResult>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A tools/call this path answers: no progress to relay, no task. Anything else goes to the SDK. */
function plainCall(m: Record<string, unknown>): m is Request {
  if (m.method !== 'tools/call' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return false;
  const p = m.params as Params | undefined;
  if (!isObject(p)) return true;
  return p.task === undefined && (p._meta === undefined || (isObject(p._meta) && p._meta.progressToken === undefined));
}

/** What is wrong with a call's params, named by field, or null. */
function paramsProblem(p: Params | undefined): string | null {
  if (!isObject(p)) return 'Invalid params: params must be an object with name and arguments';
  if (typeof p.name !== 'string' || !p.name) return 'Invalid params: params.name must be a non-empty string';
  if (p.arguments !== undefined && !isObject(p.arguments)) return 'Invalid params: params.arguments must be an object';
  return null;
}

/**
 * Answers plain tools/call requests on an agent's transport without the
 * SDK's Protocol, which checks each message against zod schemas and wraps
 * each handler in layers of promises: the hot path's largest share of CPU
 * after the socket writes. Everything else (and any call with a progress
 * token) still goes through the SDK Server, which stays connected to the
 * same transport; requests the upstream makes during a call (sampling,
 * elicitation) and its log messages reach the agent through that Server.
 */
export function answerToolCalls(server: Server, transport: Transport, handle: CallHandler): void {
  const inner = transport.onmessage;
  const running = new Map<string | number, AbortController>();

  const answer = async (req: Request) => {
    const problem = paramsProblem(req.params);
    if (problem) {
      await transport.send({ jsonrpc: '2.0', id: req.id, error: { code: ErrorCode.InvalidParams, message: problem } }).catch((err) => transport.onerror?.(err as Error));
      return;
    }
    const ctrl = new AbortController();
    running.set(req.id, ctrl);
    const related = { relatedRequestId: req.id };
    const extra: CallExtra = {
      requestId: req.id,
      signal: ctrl.signal,
      sendNotification: (n) => server.notification(n, related),
      sendRequest: (r, schema) => server.request(r, schema, related),
    };
    let response: JSONRPCMessage;
    try {
      const result = await handle(req.params!.name as string, (req.params!.arguments as Record<string, unknown>) ?? {}, extra);
      response = { jsonrpc: '2.0', id: req.id, result };
    } catch (err) {
      // The SDK's error response, field for field.
      const e = err as { code?: unknown; message?: string; data?: unknown };
      const code = Number.isSafeInteger(e.code) ? (e.code as number) : ErrorCode.InternalError;
      response = { jsonrpc: '2.0', id: req.id, error: { code, message: e.message ?? 'Internal error', ...(e.data !== undefined && { data: e.data }) } };
    } finally {
      running.delete(req.id);
    }
    // A cancelled request gets no response (MCP's cancellation rule).
    if (ctrl.signal.aborted) return;
    await transport.send(response).catch((err) => transport.onerror?.(err as Error));
  };

  transport.onmessage = (message, extra) => {
    const m = message as Record<string, unknown>;
    if (plainCall(m)) return void answer(m);
    if (m.method === 'notifications/cancelled' && isObject(m.params)) {
      running.get(m.params.requestId as string | number)?.abort(m.params.reason);
    }
    inner?.(message, extra);
  };
  const onclose = transport.onclose;
  transport.onclose = () => {
    for (const ctrl of running.values()) ctrl.abort('The agent closed the session');
    onclose?.();
  };
}
