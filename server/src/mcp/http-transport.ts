import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The answer stream of one POST. Once it is SSE its events carry ids
 * (`<stream>_<seq>`) and are kept until its last response is out, so a client
 * whose connection dropped resumes with GET and `Last-Event-ID` (SEP-1699).
 */
type Stream = {
  id: string;
  res?: ServerResponse;
  pending: Set<RequestId>;
  sse: boolean;
  single: boolean;
  flushTimer?: NodeJS.Timeout;
  /** Events after the priming one; `log[k]` has seq k + 1. */
  log: string[];
  done: boolean;
};
type Message = Record<string, unknown>;

/** What a client should wait before reconnecting a dropped stream (the SSE `retry` field). */
const RETRY_MS = 2000;
/** How long the events of a stream whose client vanished are kept for it to resume. */
const KEEP_MS = 5 * 60_000;
const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' };

/** A JSON-RPC error that answers no request in particular (the HTTP request itself was wrong). */
export const rpcErrorBody = (code: number, message: string) => ({ jsonrpc: '2.0' as const, error: { code, message }, id: null });

/** The same, as a plain HTTP answer. */
export function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(rpcErrorBody(code, message)));
}

function isMessage(m: unknown): m is Message {
  if (!m || typeof m !== 'object' || (m as Message).jsonrpc !== '2.0') return false;
  const msg = m as Message;
  return typeof msg.method === 'string' || ('id' in msg && ('result' in msg || 'error' in msg));
}

const isRequest = (m: Message) => typeof m.method === 'string' && 'id' in m;
/** MCP request ids: a string or an integer that survives a JSON round trip (never null, a fraction or an object). */
const validId = (id: unknown) => typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
const isResponse = (m: Message) => !('method' in m) && 'id' in m;

/**
 * The server side of MCP's streamable HTTP transport, written straight onto
 * Node's request and response. The SDK's transport converts every request
 * to a web Request and back; on the tool-call path that conversion cost
 * more CPU than everything else Hub does. Session routing, auth and Host
 * checks happen before this (http/mcp.ts); this class speaks the protocol:
 * POST carries messages and answers requests on an SSE stream that ends with
 * the last response, GET opens the one standalone stream, DELETE ends the
 * session.
 */
export class NodeStreamableTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly streams = new Map<RequestId, Stream>();
  /** SSE answer streams that a client may resume, by stream id. */
  private readonly resumable = new Map<string, Stream>();
  private streamCount = 0;
  private standalone?: ServerResponse;
  private closed = false;
  /** While a session is restored: the replayed `initialize`, whose answer nobody waits for. */
  private restoring?: { id: RequestId; done: () => void };

  /** `onsessioninitialized` may return a promise (the session being recorded): the initialize answer waits for it, so another replica already knows the session when the agent's next request reaches it. */
  constructor(private readonly opts: { onsessioninitialized: (id: string) => void | Promise<void>; onsessionclosed?: (id: string) => void }) {}

  /**
   * Brings back a session opened elsewhere (another replica, or before a
   * restart): the server is fed the agent's original `initialize` and
   * `notifications/initialized`, as if it had just answered them, and keeps
   * the session's id. `onsessioninitialized` is not called again.
   */
  async restore(sessionId: string, init: JSONRPCMessage): Promise<void> {
    this.sessionId = sessionId;
    const id = (init as Message).id as RequestId;
    const answered = new Promise<void>((done) => (this.restoring = { id, done }));
    this.onmessage?.(init);
    await Promise.race([answered, new Promise((r) => setTimeout(r, 5000).unref())]);
    this.restoring = undefined;
    this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
  }

  async start(): Promise<void> {}

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (req.method === 'POST') return this.post(req, res, body);
    if (req.method === 'GET') return this.get(req, res);
    if (req.method === 'DELETE') {
      await this.close();
      res.writeHead(200).end();
      return;
    }
    res.setHeader('allow', 'GET, POST, DELETE');
    rpcError(res, 405, -32000, 'Method not allowed');
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown): void | Promise<void> {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return rpcError(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!(req.headers['content-type'] ?? '').includes('application/json')) {
      return rpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const messages = Array.isArray(body) ? body : [body];
    if (messages.length === 0 || !messages.every(isMessage)) return rpcError(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    // A request whose id could not be echoed back would wait forever for its answer.
    if (messages.some((m) => 'id' in m && !validId(m.id))) {
      return rpcError(res, 400, -32600, 'Invalid Request: id must be a string or an integer');
    }
    const initializing = messages.some((m) => m.method === 'initialize');
    if (initializing) {
      if (this.sessionId) return rpcError(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return rpcError(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = randomUUID();
      const recorded = this.opts.onsessioninitialized(this.sessionId);
      if (recorded) return recorded.then(() => this.deliver(req, res, messages));
    } else {
      const version = req.headers['mcp-protocol-version'];
      if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return rpcError(res, 400, -32000, `Bad Request: Unsupported protocol version ${version}`);
      }
    }
    this.deliver(req, res, messages);
  }

  private deliver(req: IncomingMessage, res: ServerResponse, messages: Message[]): void {
    const extra = { requestInfo: { headers: req.headers } };
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      res.writeHead(202).end();
      for (const m of messages) this.onmessage?.(m as JSONRPCMessage, extra);
      return;
    }
    // A lone request answered with nothing before its response gets a plain JSON body
    // (one write, no chunked SSE framing for either side to handle). Anything sent
    // first (progress, logs, a sampling request), a batch, or a second of silence
    // turns the answer into an SSE stream, as the transport allows.
    const stream: Stream = { id: String(++this.streamCount), res, pending: new Set(requests.map((r) => r.id as RequestId)), sse: false, single: requests.length === 1, log: [], done: false };
    stream.flushTimer = setTimeout(() => {
      this.openSse(stream);
      res.flushHeaders();
    }, 1000);
    for (const id of stream.pending) this.streams.set(id, stream);
    res.once('close', () => {
      clearTimeout(stream.flushTimer);
      if (stream.res !== res) return;
      stream.res = undefined;
      if (stream.done) return;
      // An SSE stream's answers are still kept for the client to resume; a JSON answer has nowhere to go.
      if (stream.sse) return void setTimeout(() => this.forget(stream), KEEP_MS).unref();
      for (const id of stream.pending) this.streams.delete(id);
    });
    for (const m of messages) this.onmessage?.(m as JSONRPCMessage, extra);
  }

  /** Turns an answer into an SSE stream: headers, then a priming event whose id a client can resume from. */
  private openSse(stream: Stream): void {
    if (stream.sse) return;
    stream.sse = true;
    this.resumable.set(stream.id, stream);
    stream.res?.writeHead(200, this.sessionId ? { ...sseHeaders, 'mcp-session-id': this.sessionId } : sseHeaders);
    stream.res?.write(`id: ${stream.id}_0\nretry: ${RETRY_MS}\ndata: \n\n`);
  }

  /** One event on an SSE answer stream, kept until the stream is complete; `last` ends it. */
  private emit(stream: Stream, message: JSONRPCMessage, last: boolean): void {
    this.openSse(stream);
    stream.log.push(`id: ${stream.id}_${stream.log.length + 1}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
    const text = stream.log[stream.log.length - 1]!;
    if (last) {
      stream.done = true;
      if (stream.res) {
        stream.res.end(text);
        this.forget(stream);
      }
      return;
    }
    stream.res?.write(text);
  }

  private forget(stream: Stream): void {
    if (this.resumable.get(stream.id) !== stream) return;
    this.resumable.delete(stream.id);
    for (const id of stream.pending) if (this.streams.get(id) === stream) this.streams.delete(id);
  }

  /** GET with `Last-Event-ID`: what the client missed of that stream, then the rest as it comes. */
  private resume(lastEventId: string, res: ServerResponse): boolean {
    const m = /^(\d+)_(\d+)$/.exec(lastEventId);
    const stream = m ? this.resumable.get(m[1]!) : undefined;
    if (!stream) return false;
    res.writeHead(200, { ...sseHeaders, 'mcp-session-id': this.sessionId ?? '' });
    for (const text of stream.log.slice(Number(m![2]))) res.write(text);
    if (stream.done) {
      res.end();
      this.forget(stream);
      return true;
    }
    stream.res?.end();
    stream.res = res;
    res.once('close', () => {
      if (stream.res !== res) return;
      stream.res = undefined;
      if (!stream.done) setTimeout(() => this.forget(stream), KEEP_MS).unref();
    });
    return true;
  }

  private get(req: IncomingMessage, res: ServerResponse): void {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      return rpcError(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    }
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && this.resume(lastEventId, res)) return;
    if (this.standalone) return rpcError(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    res.writeHead(200, { ...sseHeaders, 'mcp-session-id': this.sessionId ?? '' });
    // No id: its notifications are not kept; the retry field still paces a reconnecting client.
    res.write(`retry: ${RETRY_MS}\n\n`);
    this.standalone = res;
    res.once('close', () => {
      if (this.standalone === res) this.standalone = undefined;
    });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Message;
    if (this.restoring && isResponse(m) && m.id === this.restoring.id) return this.restoring.done();
    const requestId = isResponse(m) ? (m.id as RequestId) : options?.relatedRequestId;
    const event = () => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    if (requestId === undefined) {
      // Not tied to a request: the standalone stream, if the client opened one.
      this.standalone?.write(event());
      return;
    }
    const stream = this.streams.get(requestId);
    if (!stream) return; // the client went away; nothing to deliver to
    clearTimeout(stream.flushTimer);
    if (isResponse(m)) {
      stream.pending.delete(requestId);
      this.streams.delete(requestId);
      if (stream.pending.size === 0) {
        if (stream.single && !stream.sse) {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
          stream.res?.writeHead(200, headers).end(JSON.stringify(message));
          return;
        }
        return this.emit(stream, message, true);
      }
    }
    this.emit(stream, message, false);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of new Set(this.streams.values())) s.res?.end();
    this.streams.clear();
    this.resumable.clear();
    this.standalone?.end();
    this.standalone = undefined;
    if (this.sessionId) this.opts.onsessionclosed?.(this.sessionId);
    this.onclose?.();
  }
}
