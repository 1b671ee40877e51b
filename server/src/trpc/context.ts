import type { Services } from '../services';
import type { Principal } from '../auth/principal';

export type Context = {
  services: Services;
  principal: Principal | null;
  /** Why the presented credentials were refused, when they were. */
  authError: string | null;
  ip: string;
  /** The credential and the settings revision it was checked at (a WebSocket context lives on). */
  credential?: string;
  checkedAt: number;
};

export type Credentials = { authorization?: string; token?: string; apiKey?: string; cookieToken?: string; ip: string };

function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m ? m[1] : undefined;
}

/** Resolves the caller from whatever door it came through. */
export async function createContext(services: Services, creds: Credentials): Promise<Context> {
  const token = creds.token ?? bearerOf(creds.authorization) ?? creds.apiKey ?? creds.cookieToken;
  const base = { services, ip: creds.ip, credential: token, checkedAt: services.store.revision };
  if (creds.authorization && !token) {
    return { ...base, principal: null, authError: 'Authorization header must be "Bearer <token>"' };
  }
  if (!token) {
    const anon = services.settings.routing().skipAuth ? services.auth.anonymousAdmin() : null;
    return { ...base, principal: anon, authError: null };
  }
  const resolved = await services.auth.resolveCredential(token);
  if ('error' in resolved) return { ...base, principal: null, authError: resolved.error };
  return { ...base, principal: resolved, authError: null };
}

/**
 * Brings a long-lived context (a WebSocket connection) up to date: after any
 * settings change (a logout, a deleted user, a new role) the credential is
 * checked again, so revocations reach open connections at their next call.
 */
export async function refreshContext(ctx: Context): Promise<void> {
  if (ctx.checkedAt === ctx.services.store.revision) return;
  ctx.checkedAt = ctx.services.store.revision;
  if (!ctx.credential) {
    ctx.principal = ctx.services.settings.routing().skipAuth ? ctx.services.auth.anonymousAdmin() : null;
    return;
  }
  const resolved = await ctx.services.auth.resolveCredential(ctx.credential);
  if ('error' in resolved) {
    ctx.principal = null;
    ctx.authError = resolved.error;
  } else {
    ctx.principal = resolved;
  }
}
