import { randomBytes } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { roleOf, type LoginInput, type LoginResult, type PublicUser, type UserRecord } from '@hub/contract';
import type { Store } from '../store/store';
import type { TokenService } from '../auth/tokens';
import { burnVerification, hashPassword, isLegacyHash, verifyPassword } from '../auth/passwords';
import { rolePermissions } from '../auth/permissions';
import type { Principal } from '../auth/principal';
import { KeysService } from './keys';
import type { Counters } from '../cluster/counters';
import { AttemptLimiter } from '../auth/attempts';
import { ForwardAuth } from '../auth/forward-auth';
import type { MfaService } from './mfa';
import type { DatabaseUsers } from './db-users';
import type { Permission } from '@hub/contract';

export function toPublicUser(u: UserRecord): PublicUser {
  const role = roleOf(u);
  return {
    username: u.username,
    role,
    isAdmin: role === 'admin',
    email: u.email ?? undefined,
    servers: u.servers ?? [],
    groups: u.groups ?? [],
    generatedPassword: u.generatedPassword ?? false,
    mfaEnabled: u.mfa?.enabled ?? false,
    ...(linkedBy(u) ? { signIn: linkedBy(u) } : {}),
  };
}

/** How a user linked to an outside identity signs in (see auth/linked-users.ts). */
const linkedBy = (u: UserRecord) => (u.identity as { provider?: 'oidc' | 'forward' } | undefined)?.provider;

export function principalOf(u: UserRecord, session?: Principal['session']): Principal {
  const role = roleOf(u);
  return {
    kind: 'user',
    username: u.username,
    role,
    servers: u.servers ?? [],
    groups: u.groups ?? [],
    permissions: new Set(rolePermissions[role]),
    session,
    ...(session ? { expiresAt: session.exp * 1000 } : {}),
  };
}

export class AuthService {
  // Verified tokens, so the MCP hot path does not re-verify a JWT on every call.
  // Cleared on any settings change (logout, user edits), so revocation is immediate.
  private readonly verified = new Map<string, { principal: Principal; until: number }>();

  constructor(
    private readonly store: Store,
    private readonly tokens: TokenService,
    private readonly keys: KeysService,
    private readonly mfa: MfaService,
    private readonly database: DatabaseUsers,
    counters?: Counters,
  ) {
    store.onChange(() => this.verified.clear());
    this.forward = new ForwardAuth(store);
    this.attempts = new AttemptLimiter(() => {
      const r = this.store.get().systemConfig.rateLimit;
      return { max: r?.loginMax ?? 10, windowMs: r?.windowMs ?? 900_000 };
    }, counters);
  }

  /**
   * Any credential a caller may present: a session token (JWT), a Hub API
   * key, or (on MCP routes) one of MCPHub's bearer keys.
   */
  async resolveCredential(credential: string, opts: { bearerKeys?: boolean } = {}): Promise<Principal | { error: string }> {
    if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(credential)) return this.resolveToken(credential);
    const found = this.keys.find(credential);
    if ('record' in found) {
      const key = found.record;
      const owner = this.findUser(key.owner);
      if (!owner) return { error: 'The owner of this API key no longer exists' };
      const base = principalOf(owner);
      const permissions = new Set((key.permissions as Permission[]).filter((p) => base.permissions.has(p)));
      return { ...base, kind: 'apiKey', keyId: key.id, permissions, ...(key.expiresAt ? { expiresAt: Date.parse(key.expiresAt) } : {}) };
    }
    if (opts.bearerKeys && found.unknown) {
      const legacy = this.store.get().bearerKeys?.find((k) => k.enabled !== false && k.token === credential);
      if (legacy) {
        const type = legacy.accessType ?? 'all';
        return {
          kind: 'apiKey',
          username: `bearer-key:${legacy.name ?? legacy.id ?? 'key'}`,
          role: 'user',
          servers: type === 'servers' || type === 'custom' ? (legacy.allowedServers ?? []) : [],
          groups: type === 'groups' || type === 'custom' ? (legacy.allowedGroups ?? []) : [],
          permissions: new Set(KeysService.mcpPermissions),
          allAccess: type === 'all',
          routeBound: type !== 'all',
          keyId: legacy.id,
        };
      }
    }
    return { error: found.error };
  }

  findUser(username: string): UserRecord | undefined {
    return this.store.get().users.find((u) => u.username === username);
  }

  /** Creates the first admin when there is no user; returns the password if it was generated. */
  async bootstrapAdmin(username: string, password?: string): Promise<string | undefined> {
    if (this.store.get().users.length > 0) return undefined;
    const generated = password ? undefined : randomBytes(18).toString('base64url');
    const hash = await hashPassword(password ?? generated!);
    // Replicas starting together: the check runs again on the stored state, and only the one that created the admin tells its password.
    const created = await this.store.update((s) => {
      if (s.users.length > 0) return false;
      s.users.push({
        username,
        password: hash,
        isAdmin: true,
        role: 'admin',
        generatedPassword: generated ? true : undefined,
        passwordChangedAt: new Date().toISOString(),
      });
      return true;
    });
    return created ? generated : undefined;
  }

  /** Failed logins and one-time codes per `<username>|<address>` (see AttemptLimiter), shared by replicas. */
  readonly attempts: AttemptLimiter;
  private readonly forward: ForwardAuth;

  login(input: LoginInput, ip = ''): Promise<LoginResult> {
    return this.attempts.guard(this.attemptKey(input.username, ip), 'logins', () => this.checkLogin(input), (err) => err instanceof TRPCError && err.code === 'UNAUTHORIZED');
  }

  /** Whose attempts at a secret count together: one user from one address. */
  attemptKey(username: string, ip: string): string {
    return `${username.toLowerCase()}|${ip}`;
  }

  /**
   * Proves a session's user is present before MFA changes: the rate limit
   * of logins, and a valid current TOTP code when MFA is on, else the
   * current password.
   */
  async confirmIdentity(principal: Principal, ip: string, proof: { password?: string; code?: string }): Promise<UserRecord> {
    return this.attempts.guard(this.attemptKey(principal.username, ip), 'attempts', async () => {
      const user = this.findUser(principal.username);
      if (!user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'User no longer exists' });
      if (user.mfa?.enabled && user.mfa.secret) {
        if (!proof.code) throw new TRPCError({ code: 'BAD_REQUEST', message: 'code: the current 6-digit code from your authenticator is required' });
        if (!this.mfa.check(user.username, user.mfa.secret, proof.code)) throw new TRPCError({ code: 'BAD_REQUEST', message: 'code: is not valid' });
      } else {
        if (!proof.password) throw new TRPCError({ code: 'BAD_REQUEST', message: 'password: your current password is required' });
        if (!(await verifyPassword(user.password, proof.password))) throw new TRPCError({ code: 'BAD_REQUEST', message: 'password: is not correct' });
      }
      return user;
    }, (err) => err instanceof TRPCError && err.code === 'BAD_REQUEST' && /not (valid|correct)/.test(err.message));
  }

  /** A local user, else (with `auth.provider = database`) one from the database table. */
  async lookupUser(username: string): Promise<UserRecord | undefined> {
    const local = this.findUser(username);
    if (local || !this.database.enabled()) return local;
    try {
      return await this.database.find(username);
    } catch (err) {
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `User database unavailable: ${(err as Error).message}` });
    }
  }

  private async checkLogin(input: LoginInput): Promise<LoginResult> {
    const user = await this.lookupUser(input.username);
    if (!user) {
      await burnVerification(input.password);
      throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Invalid username or password' });
    }
    if (!(await verifyPassword(user.password, input.password))) {
      throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Invalid username or password' });
    }
    if (user.mfa?.enabled && user.mfa.secret) {
      if (!input.mfaCode) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'mfaCode: a 6-digit code from your authenticator is required' });
      if (!this.mfa.check(user.username, user.mfa.secret, input.mfaCode)) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'mfaCode: is not valid' });
    }
    if (isLegacyHash(user.password) && this.findUser(user.username)) await this.upgradeHash(user.username, input.password);
    const token = await this.tokens.sign(user.username, user.tokenVersion ?? 0);
    return { token, user: toPublicUser(user), expiresIn: this.tokens.expiresIn };
  }

  /** MCPHub stored bcrypt; move the user to argon2id now that we know the password. */
  private async upgradeHash(username: string, password: string): Promise<void> {
    const hash = await hashPassword(password);
    await this.store.update((s) => {
      const u = s.users.find((x) => x.username === username);
      if (u && isLegacyHash(u.password)) u.password = hash;
    });
  }

  /** A fresh session token for a local user (after a password change ended the old ones). */
  async issueToken(username: string): Promise<{ token: string; expiresIn: number }> {
    const user = this.findUser(username);
    if (!user) throw new TRPCError({ code: 'NOT_FOUND', message: `User ${username} not found` });
    return { token: await this.tokens.sign(username, user.tokenVersion ?? 0), expiresIn: this.tokens.expiresIn };
  }

  /** Ends every session token of a user, wherever it is in use. */
  async revokeAll(username: string): Promise<void> {
    await this.store.update((s) => {
      const u = s.users.find((x) => x.username === username);
      if (!u) throw new TRPCError({ code: 'NOT_FOUND', message: `User ${username} not found` });
      u.tokenVersion = (u.tokenVersion ?? 0) + 1;
    });
  }

  async logout(principal: Principal): Promise<void> {
    const session = principal.session;
    if (!session) return;
    const now = Math.floor(Date.now() / 1000);
    await this.store.update((s) => {
      const kept = (s.revokedTokens ?? []).filter((t) => t.exp > now);
      kept.push({ jti: session.jti, exp: session.exp });
      s.revokedTokens = kept;
    });
  }

  /** Resolves a bearer token to the current state of its user. */
  async resolveToken(token: string): Promise<Principal | { error: string }> {
    const hit = this.verified.get(token);
    if (hit && hit.until > Date.now()) return hit.principal;
    const resolved = await this.verifyToken(token);
    if (!('error' in resolved)) {
      if (this.verified.size > 10_000) this.verified.clear();
      const until = Math.min(Date.now() + 60_000, (resolved.session?.exp ?? 0) * 1000);
      this.verified.set(token, { principal: resolved, until });
    }
    return resolved;
  }

  private async verifyToken(token: string): Promise<Principal | { error: string }> {
    const claims = await this.tokens.verify(token);
    if ('error' in claims) {
      // Not one of Hub's own tokens: perhaps one a trusted gateway signed.
      if (!this.forward.enabled) return claims;
      const found = await this.forward.resolve(token);
      if ('error' in found) return found;
      if (this.store.get().revokedTokens?.some((t) => t.jti === found.jti)) return { error: 'Token has been revoked' };
      return principalOf(found.user, { jti: found.jti, exp: found.exp });
    }
    if (this.store.get().revokedTokens?.some((t) => t.jti === claims.jti)) return { error: 'Token has been revoked' };
    const user = await this.lookupUser(claims.username).catch(() => undefined);
    if (!user) return { error: 'User no longer exists' };
    // A password change (or sign-out everywhere) ends every session started before it.
    if (claims.version !== (user.tokenVersion ?? 0)) return { error: 'Token has been revoked' };
    return principalOf(user, { jti: claims.jti, exp: claims.exp });
  }

  /** The principal used when `routing.skipAuth` removes the console login. */
  anonymousAdmin(): Principal {
    const admin = this.store.get().users.find((u) => roleOf(u) === 'admin');
    return principalOf(admin ?? { username: 'admin', password: '-', role: 'admin' });
  }
}
