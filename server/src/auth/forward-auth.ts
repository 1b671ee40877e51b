import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { UserRecord } from '@hub/contract';
import type { Store } from '../store/store';
import { hashPassword } from './passwords';

/** Public-key algorithms only: a shared secret could be guessed or leaked from elsewhere. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

type Linked = { provider: 'forward'; issuer: string; subject: string };

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
    const link: Linked = { provider: 'forward', issuer: f.issuer!, subject };
    const linked = (u: UserRecord) => {
      const l = (u as { identity?: Linked }).identity;
      return l?.provider === 'forward' && l.issuer === link.issuer && l.subject === link.subject;
    };
    // A sign-out revokes this token only: its id, or a digest of it.
    const jti = typeof payload.jti === 'string' ? `fwd:${payload.jti}` : `fwd:${createHash('sha256').update(token).digest('base64url').slice(0, 22)}`;
    const exp = typeof payload.exp === 'number' ? payload.exp : Math.floor(Date.now() / 1000) + 60;
    const refused = { error: `User ${username} exists in Hub and is not linked to this gateway identity` };
    const existing = this.store.get().users.find((u) => u.username === username);
    if (existing) return linked(existing) ? { user: existing, jti, exp } : refused;
    // First sight: an account of the default role, with a password nobody knows.
    const password = await hashPassword(randomBytes(24).toString('base64url'));
    return this.store.update((s) => {
      const again = s.users.find((u) => u.username === username);
      if (again) return linked(again) ? { user: again, jti, exp } : refused;
      const user = { username, password, role: f.defaultRole ?? 'user', servers: [], groups: [], identity: link } as UserRecord;
      s.users.push(user);
      return { user, jti, exp };
    });
  }
}
