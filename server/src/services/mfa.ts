import { TRPCError } from '@trpc/server';
import { Secret, TOTP } from 'otpauth';
import type { Store } from '../store/store';

const totp = (secret: string, label = 'hub', issuer = 'Hub') =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });

/** TOTP second factor: enable (secret and otpauth URI shown once), verify to switch on, then required at login. */
export class MfaService {
  // Last accepted time step per user, so a code cannot be replayed within its window.
  private readonly lastStep = new Map<string, number>();

  constructor(private readonly store: Store) {}

  async begin(username: string, appName = 'Hub'): Promise<{ type: 'totp'; secret: string; otpauthUri: string }> {
    const secret = new Secret({ size: 20 }).base32;
    await this.store.update((s) => {
      const u = s.users.find((x) => x.username === username);
      if (!u) throw new TRPCError({ code: 'NOT_FOUND', message: `User ${username} not found` });
      u.mfa = { enabled: u.mfa?.enabled ?? false, secret: u.mfa?.secret, pendingSecret: secret };
    });
    return { type: 'totp', secret, otpauthUri: totp(secret, username, appName).toString() };
  }

  /** True when `code` is valid now for `secret` and was not used before. */
  check(username: string, secret: string, code: string): boolean {
    const delta = totp(secret).validate({ token: code, window: 1 });
    if (delta === null) return false;
    const step = Math.floor(Date.now() / 30_000) + delta;
    if ((this.lastStep.get(username) ?? -1) >= step) return false;
    this.lastStep.set(username, step);
    return true;
  }

  async confirm(username: string, code: string): Promise<{ enabled: true }> {
    const u = this.store.get().users.find((x) => x.username === username);
    const pending = u?.mfa?.pendingSecret;
    if (!pending) throw new TRPCError({ code: 'BAD_REQUEST', message: 'code: call mfa/enable first' });
    if (!this.check(username, pending, code)) throw new TRPCError({ code: 'BAD_REQUEST', message: 'code: is not valid' });
    await this.store.update((s) => {
      const x = s.users.find((y) => y.username === username)!;
      x.mfa = { enabled: true, secret: pending };
    });
    return { enabled: true };
  }

  enabled(username: string): boolean {
    const u = this.store.get().users.find((x) => x.username === username);
    return Boolean(u?.mfa?.enabled && u.mfa.secret);
  }

  /** Switches MFA off; the caller has proved who it is (AuthService.confirmIdentity). */
  async disable(username: string): Promise<{ enabled: false }> {
    if (!this.enabled(username)) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Multi-factor login is not enabled' });
    await this.store.update((s) => {
      delete s.users.find((y) => y.username === username)!.mfa;
    });
    return { enabled: false };
  }
}
