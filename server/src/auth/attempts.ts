import { TRPCError } from '@trpc/server';
import { MemoryCounters, type Counters } from '../cluster/counters';

/**
 * Failed attempts at a secret (a password, a one-time code) per key, such as
 * `<username>|<address>`: past `max` within the window, further attempts are
 * refused until it ends. Successes never count. An attacker's address is held
 * back for that user while the real user, elsewhere, is not.
 */
export class AttemptLimiter {
  constructor(
    private readonly limits: () => { max: number; windowMs: number },
    private readonly counters: Counters = new MemoryCounters(),
  ) {}

  /** Throws TOO_MANY_REQUESTS while `key` is held back. */
  async check(key: string, what = 'attempts'): Promise<void> {
    const seen = await this.counters.peek(`attempt:${key}`);
    if (seen && seen.count >= this.limits().max) {
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: `Too many failed ${what}; try again in ${Math.ceil(seen.ttlMs / 1000)} s` });
    }
  }

  async fail(key: string): Promise<void> {
    await this.counters.incr(`attempt:${key}`, this.limits().windowMs);
  }

  /** Runs `attempt`; a failure of the kinds `counts` accepts is counted against `key`. */
  async guard<T>(key: string, what: string, attempt: () => Promise<T>, counts: (err: unknown) => boolean): Promise<T> {
    await this.check(key, what);
    try {
      return await attempt();
    } catch (err) {
      if (counts(err)) await this.fail(key).catch(() => undefined);
      throw err;
    }
  }
}
