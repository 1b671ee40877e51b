import type { Services } from '../services';
import type { Principal } from '../auth/principal';

export type Context = {
  services: Services;
  principal: Principal | null;
  /** Why the presented credentials were refused, when they were. */
  authError: string | null;
  ip: string;
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
  const base = { services, ip: creds.ip };
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
