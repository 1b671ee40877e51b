import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type Pending = { resolve: (result: Record<string, unknown>) => void; reject: (err: unknown) => void; done: () => void };
type Message = { id?: unknown; method?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

/**
 * Requests sent straight on a connected client's transport and matched to
 * their responses here, for the tool-call hot path. The SDK's Protocol
 * checks every message against zod schemas on the way in and out; a proxy
 * passes results through as the upstream sent them, so that work bought
 * nothing and cost a fair share of Hub's CPU per call. Ids are strings
 * ("hub-1"), so they never meet the Protocol's numeric ones; everything
 * else (notifications, the upstream's own requests, other responses) still
 * goes to the Protocol. Timeouts and cancellation behave as the SDK's.
 */
export class DirectRequests {
  private seq = 0;
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly transport: Transport) {
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as Message;
      if (typeof m.id === 'string' && m.method === undefined) {
        const p = this.pending.get(m.id);
        if (p) {
          p.done();
          if (m.error) p.reject(McpError.fromError(m.error.code, m.error.message, m.error.data));
          else p.resolve(m.result ?? {});
          return;
        }
      }
      onmessage?.(message, extra);
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      for (const p of [...this.pending.values()]) {
        p.done();
        p.reject(McpError.fromError(ErrorCode.ConnectionClosed, 'Connection closed'));
      }
      onclose?.();
    };
  }

  request(method: string, params: Record<string, unknown>, opts: { signal?: AbortSignal; timeout: number }): Promise<Record<string, unknown>> {
    const { signal, timeout } = opts;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const id = `hub-${++this.seq}`;
      const cancel = (reason: unknown) => {
        done();
        void this.transport
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String(reason) } })
          .catch(() => undefined);
        reject(reason instanceof McpError ? reason : new McpError(ErrorCode.RequestTimeout, String(reason)));
      };
      const onAbort = () => cancel(signal!.reason);
      const done = () => {
        this.pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const timer = setTimeout(() => cancel(McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout })), timeout);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { resolve, reject, done });
      this.transport.send({ jsonrpc: '2.0', id, method, params }).catch((err) => {
        done();
        reject(err);
      });
    });
  }
}

const attached = new WeakMap<Client, DirectRequests>();

/** The direct sender of a connected client, made on first use. */
export function directRequests(client: Client): DirectRequests | undefined {
  let d = attached.get(client);
  if (!d && client.transport) {
    d = new DirectRequests(client.transport);
    attached.set(client, d);
  }
  return d;
}
