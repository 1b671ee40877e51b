import { z } from 'zod';
import { loginInput, passwordChange, userCreate, type AuthPermissions } from '@hub/contract';
import { audited, requires } from '../trpc/init';
import { authedProcedure, publicProcedure, router, sessionProcedure } from '../trpc/init';
import { byResource } from '../auth/permissions';
import { toPublicUser } from '../services/auth';
import { TRPCError } from '@trpc/server';

const sixDigits = z.string().regex(/^\d{6}$/, 'must be a 6-digit code');

export const authRouter = router({
  login: publicProcedure.input(loginInput).mutation(async ({ ctx, input }) => {
    try {
      const result = await ctx.services.auth.login(input, ctx.ip);
      ctx.services.audit.record({ event: 'login', actor: input.username, ip: ctx.ip, success: true });
      return result;
    } catch (err) {
      ctx.services.audit.record({ event: 'login', actor: null, ip: ctx.ip, success: false, details: { username: input.username } });
      throw err;
    }
  }),

  logout: authedProcedure.mutation(async ({ ctx }) => {
    await ctx.services.auth.logout(ctx.principal);
    ctx.services.audit.record({ event: 'logout', actor: ctx.principal.username, ip: ctx.ip, success: true });
    return { message: 'Logged out' };
  }),

  verify: authedProcedure.query(async ({ ctx }) => {
    const user = await ctx.services.auth.lookupUser(ctx.principal.username);
    if (!user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'User no longer exists' });
    return { valid: true, user: toPublicUser(user) };
  }),

  /** Signs the caller out on every device: every session token of theirs stops working. */
  logoutAll: sessionProcedure.mutation(async ({ ctx }) => {
    await ctx.services.auth.revokeAll(ctx.principal.username);
    ctx.services.audit.record({ event: 'logout', actor: ctx.principal.username, ip: ctx.ip, success: true, details: { everywhere: true } });
    return { message: 'Signed out everywhere' };
  }),

  /**
   * Any signed-in user changes their own password. Every earlier session
   * token stops working; the answer carries a new one for the caller.
   */
  changePassword: sessionProcedure.input(passwordChange).mutation(async ({ ctx, input }) => {
    await ctx.services.users.changeOwnPassword(ctx.principal.username, input.currentPassword, input.newPassword);
    ctx.services.audit.record({ event: 'password_change', actor: ctx.principal.username, ip: ctx.ip, success: true, target: ctx.principal.username });
    const { token, expiresIn } = await ctx.services.auth.issueToken(ctx.principal.username);
    return { message: 'Password changed; other sessions were signed out', token, expiresIn };
  }),

  /** `POST /api/auth/users` of the security guide: the same as creating a user. */
  createUser: requires('users:write').use(audited('permission_change')).input(userCreate).mutation(({ ctx, input }) => ctx.services.users.create(input)),

  /**
   * Multi-factor settings need a session (not an API key) and proof of the
   * user: the current password to start, the current code to replace an
   * active secret or switch it off. Wrong proofs count like failed logins.
   */
  mfaEnable: sessionProcedure
    .use(audited('permission_change'))
    .input(
      z
        .object({
          type: z.literal('totp', { message: "must be 'totp'" }).default('totp'),
          appName: z.string().min(1).max(100).optional(),
          password: z.string().min(1).max(1024).optional(),
          code: sixDigits.optional(),
        })
        .default({ type: 'totp' }),
    )
    .mutation(async ({ ctx, input }) => {
      await ctx.services.auth.confirmIdentity(ctx.principal, ctx.ip, input);
      return ctx.services.mfa.begin(ctx.principal.username, input.appName);
    }),
  mfaVerify: sessionProcedure
    .use(audited('permission_change'))
    .input(z.object({ code: sixDigits }))
    .mutation(({ ctx, input }) => {
      const key = ctx.services.auth.attemptKey(ctx.principal.username, ctx.ip);
      const wrong = (err: unknown) => err instanceof TRPCError && err.message === 'code: is not valid';
      return ctx.services.auth.attempts.guard(key, 'attempts', () => ctx.services.mfa.confirm(ctx.principal.username, input.code), wrong);
    }),
  mfaDisable: sessionProcedure
    .use(audited('permission_change'))
    .input(z.object({ code: sixDigits }))
    .mutation(async ({ ctx, input }) => {
      if (!ctx.services.mfa.enabled(ctx.principal.username)) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Multi-factor login is not enabled' });
      await ctx.services.auth.confirmIdentity(ctx.principal, ctx.ip, { code: input.code });
      return ctx.services.mfa.disable(ctx.principal.username);
    }),

  permissions: authedProcedure.query(({ ctx }): AuthPermissions => {
    const perms = [...ctx.principal.permissions];
    return { username: ctx.principal.username, role: ctx.principal.role, permissions: perms, byResource: byResource(perms) };
  }),
});
