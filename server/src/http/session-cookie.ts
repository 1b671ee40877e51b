import type { FastifyReply } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import { parse } from 'cookie';
import type { Services } from '../services';

export const SESSION_COOKIE = 'hub_session';

function settings(services: Services) {
  const s = services.store.get().systemConfig.session;
  return s?.enabled && s.secret ? s : null;
}

/**
 * Session cookies for the console, an alternative to bearer tokens: the
 * cookie holds the session token, signed with `session.secret`.
 */
export function setSessionCookie(services: Services, reply: FastifyReply, token: string): void {
  const s = settings(services);
  if (!s) return;
  const c = s.cookie ?? {};
  const value = fastifyCookie.sign(token, s.secret!);
  const maxAge = Math.floor((c.maxAge ?? 86_400_000) / 1000);
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAge}; SameSite=${c.sameSite ?? 'lax'}` +
      `${c.httpOnly === false ? '' : '; HttpOnly'}${c.secure ? '; Secure' : ''}`,
  );
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly`);
}

/** The session token carried by a request's cookie, if the signature holds. */
export function tokenFromCookie(services: Services, header: string | undefined): string | undefined {
  const s = settings(services);
  if (!s || !header) return undefined;
  // @fastify/cookie's parser needs Node 22 here; the `cookie` package's own works on 20.
  const raw = parse(header)[SESSION_COOKIE];
  if (!raw) return undefined;
  const result = fastifyCookie.unsign(raw, s.secret!);
  return result.valid && result.value ? result.value : undefined;
}

/** The sign-in flow's state (OpenID Connect): only for the callback path, gone after 10 minutes. */
export const OIDC_COOKIE = 'hub_oidc';

export function oidcStateFromCookie(header: string | undefined): string | undefined {
  return header ? parse(header)[OIDC_COOKIE] : undefined;
}

export function oidcStateCookie(state: string | undefined, secure: boolean): string {
  const attrs = `Path=/auth/oidc; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  return state ? `${OIDC_COOKIE}=${state}; Max-Age=600; ${attrs}` : `${OIDC_COOKIE}=; Max-Age=0; ${attrs}`;
}
