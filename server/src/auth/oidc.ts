import { hkdfSync, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { isReservedName, type Role, type SystemConfig } from '@hub/contract';
import type { Configuration } from 'openid-client';
import type { Store } from '../store/store';
import { linkedUser } from './linked-users';

type Oidc = NonNullable<NonNullable<SystemConfig['auth']>['oidc']>;
const roleRank: Role[] = ['admin', 'manager', 'user', 'viewer', 'consumer'];
const STATE = 'hub-oidc-state';
const TICKET = 'hub-oidc-ticket';

/** Thrown with a message fit to show on the sign-in page. */
export class OidcError extends Error {}

/**
 * Console sign-in with OpenID Connect: authorization code with PKCE (S256),
 * state and nonce carried in a signed, short-lived cookie bound to the
 * browser; the ID token checked by openid-client (issuer, audience, nonce,
 * signature). The result is a one-time ticket the console trades for a
 * session token, so no long-lived token ever sits in a URL.
 */
export class OidcLogin {
  private conf?: { key: string; conf: Configuration };
  private readonly key: Uint8Array;
  private readonly usedTickets = new Map<string, number>();

  constructor(
    private readonly store: Store,
    hubSecret: string,
    private readonly callbackUrl: () => string,
  ) {
    // Its own key: a state or ticket can never pass as a session token, nor the reverse.
    this.key = new Uint8Array(hkdfSync('sha256', hubSecret, 'hub', 'oidc-login', 32));
  }

  private settings(): Oidc {
    const o = this.store.get().systemConfig.auth?.oidc;
    if (!o?.enabled || !o.issuer || !o.clientId) throw new OidcError('Sign-in with OpenID Connect is not enabled');
    return o;
  }

  get enabled(): boolean {
    const o = this.store.get().systemConfig.auth?.oidc;
    return Boolean(o?.enabled && o.issuer && o.clientId);
  }

  publicView(): { enabled: boolean; buttonLabel?: string } {
    return this.enabled ? { enabled: true, buttonLabel: this.store.get().systemConfig.auth?.oidc?.buttonLabel ?? 'single sign-on' } : { enabled: false };
  }

  /** The provider's metadata, discovered once per issuer and client. */
  private async configuration(o: Oidc): Promise<Configuration> {
    const key = JSON.stringify([o.issuer, o.clientId, o.clientSecret ?? '']);
    if (this.conf?.key === key) return this.conf.conf;
    const client = await import('openid-client');
    const issuer = new URL(o.issuer!);
    try {
      const conf = await client.discovery(issuer, o.clientId!, o.clientSecret || undefined, o.clientSecret ? client.ClientSecretPost(o.clientSecret) : client.None(), {
        // The schema allows plain http only on loopback.
        execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
        timeout: 5,
      });
      this.conf = { key, conf };
      return conf;
    } catch (err) {
      throw new OidcError(`The identity provider could not be reached: ${(err as Error).message}`);
    }
  }

  /** Where to send the browser, and the state cookie that must come back with it. */
  async start(): Promise<{ location: string; state: string }> {
    const o = this.settings();
    const conf = await this.configuration(o);
    const client = await import('openid-client');
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(conf, {
      redirect_uri: this.callbackUrl(),
      scope: (o.scopes?.length ? o.scopes : ['openid', 'profile', 'email']).join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const cookie = await new SignJWT({ v: verifier, s: state, n: nonce }).setProtectedHeader({ alg: 'HS256' }).setAudience(STATE).setExpirationTime('10m').sign(this.key);
    return { location: url.href, state: cookie };
  }

  /** Completes the code flow; returns a one-time ticket for the user it signed in. */
  async finish(query: Record<string, string>, stateCookie: string | undefined): Promise<string> {
    const o = this.settings();
    if (query.error) throw new OidcError(`The identity provider refused: ${query.error_description || query.error}`);
    if (!stateCookie) throw new OidcError('The sign-in started in another browser or expired: start again');
    let flow: { v: string; s: string; n: string };
    try {
      flow = (await jwtVerify(stateCookie, this.key, { audience: STATE, algorithms: ['HS256'] })).payload as never;
    } catch {
      throw new OidcError('The sign-in expired: start again');
    }
    const conf = await this.configuration(o);
    const client = await import('openid-client');
    const current = new URL(this.callbackUrl());
    for (const [k, v] of Object.entries(query)) current.searchParams.set(k, v);
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(conf, current, { pkceCodeVerifier: flow.v, expectedState: flow.s, expectedNonce: flow.n, idTokenExpected: true });
      claims = (tokens.claims() ?? {}) as Record<string, unknown>;
    } catch (err) {
      throw new OidcError(`Sign-in failed: ${(err as Error).message}`);
    }
    const claim = o.usernameClaim ?? 'preferred_username';
    const username = claims[claim];
    if (typeof username !== 'string' || !/^[A-Za-z0-9_.@+-]{1,100}$/.test(username) || isReservedName(username) || typeof claims.sub !== 'string') {
      throw new OidcError(`The identity provider sent no usable ${claim} (A-Z a-z 0-9 _ . @ + -, at most 100)`);
    }
    const found = await linkedUser(this.store, { provider: 'oidc', issuer: String(claims.iss), subject: claims.sub }, username, this.roleOf(o, claims), Boolean(o.roleClaim));
    if ('error' in found) throw new OidcError(found.error);
    return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(username).setAudience(TICKET).setJti(randomBytes(12).toString('base64url')).setExpirationTime('60s').sign(this.key);
  }

  /** The highest role `roleMap` gives any value of the role claim, else the default. */
  private roleOf(o: Oidc, claims: Record<string, unknown>): Role {
    const fallback = o.defaultRole ?? 'user';
    if (!o.roleClaim) return fallback;
    const raw = claims[o.roleClaim];
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
    const map = o.roleMap ?? {};
    const mapped = values.filter((v) => Object.hasOwn(map, v)).map((v) => map[v]!);
    return roleRank.find((r) => mapped.includes(r)) ?? fallback;
  }

  /** The username a ticket names, once. */
  async redeem(ticket: string): Promise<string> {
    let payload: { sub?: string; jti?: string; exp?: number };
    try {
      ({ payload } = await jwtVerify(ticket, this.key, { audience: TICKET, algorithms: ['HS256'] }));
    } catch {
      throw new OidcError('ticket: is not valid or has expired; sign in again');
    }
    const now = Date.now();
    for (const [id, exp] of this.usedTickets) if (exp < now) this.usedTickets.delete(id);
    if (!payload.jti || !payload.sub || this.usedTickets.has(payload.jti)) throw new OidcError('ticket: was already used; sign in again');
    this.usedTickets.set(payload.jti, (payload.exp ?? 0) * 1000);
    return payload.sub;
  }
}
