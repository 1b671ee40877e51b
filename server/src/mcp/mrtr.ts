import { randomBytes } from 'node:crypto';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type Ask = { request: { method: string; params?: Record<string, unknown> }; resolve: (v: unknown) => void; reject: (e: unknown) => void };
type Outcome<T> = { done: T } | { error: unknown } | { ask: Ask };

/** How long a call waits for its agent to come back with the input it asked for. */
const WAIT_MS = 5 * 60_000;
const KEY = 'input';

/**
 * Calls of stateless-revision agents whose upstream asked for something
 * mid-call (elicitation, sampling, roots): the upstream call stays open
 * here, the agent gets an `input_required` result whose `requestState` is a
 * random handle, and its retry with `inputResponses` answers the upstream
 * and resumes the call. A handle works only for the caller who got it, once.
 */
export class ParkedCalls {
  private readonly calls = new Map<string, { owner: string; next: () => Promise<unknown>; answer: (v: unknown) => void; timer: NodeJS.Timeout }>();

  /** Runs `run`; its upstream's requests to the agent (`ask`) turn into input_required results. */
  start<T>(owner: string, run: (ask: (request: Ask['request']) => Promise<unknown>, signal: AbortSignal) => Promise<T>): Promise<T | Record<string, unknown>> {
    const abort = new AbortController();
    let wake: ((o: Outcome<T>) => void) | undefined;
    let queued: Outcome<T> | undefined;
    const emit = (o: Outcome<T>) => (wake ? (wake(o), (wake = undefined)) : (queued = o));
    const ask = (request: Ask['request']) => new Promise<unknown>((resolve, reject) => emit({ ask: { request, resolve, reject } }));
    run(ask, abort.signal).then(
      (done) => emit({ done }),
      (error) => emit({ error }),
    );
    const next = async (): Promise<T | Record<string, unknown>> => {
      const o = queued ?? (await new Promise<Outcome<T>>((r) => (wake = r)));
      queued = undefined;
      if ('done' in o) return o.done;
      if ('error' in o) throw o.error;
      const id = randomBytes(18).toString('base64url');
      const timer = setTimeout(() => {
        this.calls.delete(id);
        o.ask.reject(new McpError(ErrorCode.RequestTimeout, 'The agent did not come back with the input it was asked for'));
        abort.abort();
      }, WAIT_MS);
      timer.unref();
      this.calls.set(id, { owner, next, answer: o.ask.resolve, timer });
      return { resultType: 'input_required', inputRequests: { [KEY]: o.ask.request }, requestState: id };
    };
    return next();
  }

  /** A retry carrying `requestState` and `inputResponses`: the upstream gets its answer, the call goes on. */
  resume(owner: string, state: string, responses: Record<string, unknown> | undefined): Promise<unknown> {
    const call = this.calls.get(state);
    if (!call || call.owner !== owner) throw new McpError(ErrorCode.InvalidParams, 'requestState: unknown or expired');
    const response = responses?.[KEY];
    if (response === undefined) throw new McpError(ErrorCode.InvalidParams, `inputResponses.${KEY}: is required`);
    this.calls.delete(state);
    clearTimeout(call.timer);
    call.answer(response);
    return call.next();
  }
}
