import { TRPCError } from '@trpc/server';

/**
 * Failed attempts at a secret (a password, a one-time code) per key, such as
 * `<username>|<address>`: past `max` within the window, further attempts are
 * refused until it ends. Successes never count. An attacker's address is held
 * back for that user while the real user, elsewhere, is not.
 */
export class AttemptLimiter {
  private readonly failures = new Map<string, { count: number; until: number }>();

  constructor(private readonly limits: () => { max: number; windowMs: number }) {}

  /** Throws TOO_MANY_REQUESTS while `key` is held back. */
  check(key: string, what = 'attempts'): void {
    const seen = this.failures.get(key);
    if (seen && seen.until > Date.now() && seen.count >= this.limits().max) {
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: `Too many failed ${what}; try again in ${Math.ceil((seen.until - Date.now()) / 1000)} s` });
    }
  }

  fail(key: string): void {
    const seen = this.failures.get(key);
    const live = seen && seen.until > Date.now() ? seen : { count: 0, until: Date.now() + this.limits().windowMs };
    live.count++;
    if (this.failures.size > 100_000) this.failures.clear();
    this.failures.set(key, live);
  }

  /** Runs `attempt`; a failure of the kinds `counts` accepts is counted against `key`. */
  async guard<T>(key: string, what: string, attempt: () => Promise<T>, counts: (err: unknown) => boolean): Promise<T> {
    this.check(key, what);
    try {
      return await attempt();
    } catch (err) {
      if (counts(err)) this.fail(key);
      throw err;
    }
  }
}
