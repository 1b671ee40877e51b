import { TRPCError } from '@trpc/server';
import type { Permission } from '@hub/contract';
import type { Principal } from '../auth/principal';
import { refreshContext, type Context } from './context';

// setTimeout's longest delay; later expiries are re-armed.
const MAX_DELAY = 2 ** 31 - 1;

export type LiveAccess = {
  /** Aborts when the client goes or the caller loses access; give it to the feed. */
  signal: AbortSignal;
  /** The caller as of the latest settings change (its role and access may have changed). */
  principal(): Principal;
  /** `make(caller)`, worked out again only when the settings or the caller change. */
  derive<T>(make: (p: Principal) => T): () => T;
  /** Releases the watch; throws why access ended, if it did, so the client learns it. */
  finish(): void;
};

/**
 * Keeps a subscription's caller current: after every settings change the
 * credential is checked again (a logout, a password change, a deleted user,
 * a demotion), and at the credential's expiry. When the caller is gone or no
 * longer holds `perm`, the feed is aborted and `finish` throws the reason;
 * otherwise feeds read `principal()` to re-scope what they send.
 */
export function liveAccess(ctx: Context, perm: Permission | null, outer?: AbortSignal): LiveAccess {
  const ctrl = new AbortController();
  let lost: TRPCError | null = null;
  let timer: NodeJS.Timeout | undefined;
  const end = (err: TRPCError) => {
    lost ??= err;
    ctrl.abort(err);
  };
  const onOuter = () => ctrl.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });

  const verdict = () => {
    const p = ctx.principal;
    if (!p) return end(new TRPCError({ code: 'UNAUTHORIZED', message: ctx.authError ?? 'Signed out' }));
    if (p.expiresAt !== undefined && p.expiresAt <= Date.now()) return end(new TRPCError({ code: 'UNAUTHORIZED', message: 'Token expired' }));
    if (perm && !p.permissions.has(perm)) return end(new TRPCError({ code: 'FORBIDDEN', message: `Permission ${perm} required` }));
    clearTimeout(timer);
    if (p.expiresAt !== undefined) timer = setTimeout(verdict, Math.min(p.expiresAt - Date.now() + 10, MAX_DELAY)).unref();
  };
  let checking = Promise.resolve();
  const off = ctx.services.store.onChange(() => {
    // One check at a time, in order: the last change decides.
    checking = checking.then(() => refreshContext(ctx)).then(verdict, () => end(new TRPCError({ code: 'UNAUTHORIZED', message: 'Credential could not be checked' })));
  });
  verdict();
  return {
    signal: ctrl.signal,
    principal: () => ctx.principal!,
    derive<T>(make: (p: Principal) => T) {
      let memo: { revision: number; who: Principal; value: T } | undefined;
      return () => {
        const revision = ctx.services.store.revision;
        const who = ctx.principal!;
        if (memo?.revision !== revision || memo.who !== who) memo = { revision, who, value: make(who) };
        return memo.value;
      };
    },
    finish() {
      off();
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
      if (lost) throw lost;
    },
  };
}
