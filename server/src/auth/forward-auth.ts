import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { isReservedName, type UserRecord } from '@hub/contract';
import type { Store } from '../store/store';
import { linkedUser, type Identity } from './linked-users';

/** Public-key algorithms only: a shared secret could be guessed or leaked from elsewhere. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * Identities a gateway in front of Hub asserts with a signed JWT
 * (`systemConfig.auth.forwardAuth`). A user is created on first sight with
 * the default role and linked by issuer and subject; a local account of the
 * same name that is not linked is never taken over.
 */
export class ForwardAuth {
  private keys?: { url: string; get: JWTVerifyGetKey };

  constructor(private readonly store: Store) {}

  get enabled(): boolean {
    const f = this.store.get().systemConfig.auth?.forwardAuth;
    return Boolean(f?.enabled && f.jwksUrl && f.issuer && f.audience);
  }

  /** The user the token names with the token's id and expiry, or why not. */
  async resolve(token: string): Promise<{ user: UserRecord; jti: string; exp: number } | { error: string }> {
    const f = this.store.get().systemConfig.auth!.forwardAuth!;
    if (this.keys?.url !== f.jwksUrl) this.keys = { url: f.jwksUrl!, get: createRemoteJWKSet(new URL(f.jwksUrl!), { timeoutDuration: 5000 }) };
    const keys = this.keys!;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, keys.get, { issuer: f.issuer, audience: f.audience, algorithms: ALGORITHMS }));
    } catch (err) {
      return { error: `Gateway token refused: ${(err as Error).message}` };
    }
    const claim = f.usernameClaim ?? 'preferred_username';
    const username = payload[claim];
    const subject = payload.sub;
    if (typeof username !== 'string' || !username || typeof subject !== 'string') return { error: `Gateway token has no ${claim} or sub` };
    if (username.length > 100 || isReservedName(username) || /[\p{Cc}/\\]/u.test(username)) return { error: `Gateway token's ${claim} is not a usable username` };
    // A sign-out revokes this token only: its id, or a digest of it.
    const jti = typeof payload.jti === 'string' ? `fwd:${payload.jti}` : `fwd:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`;
    const exp = typeof payload.exp === 'number' ? payload.exp : Math.floor(Date.now() / 1000) + 60;
    const id: Identity = { provider: 'forward', issuer: f.issuer!, subject };
    const found = await linkedUser(this.store, id, username, f.defaultRole ?? 'user');
    return 'error' in found ? { error: found.error.replace('this sign-in', 'this gateway identity') } : { user: found.user, jti, exp };
  }
}
