import { z } from 'zod';
import { loginInput, passwordChange, userCreate, type AuthPermissions } from '@hub/contract';
import { audited, requires } from '../trpc/init';
import { authedProcedure, publicProcedure, router } from '../trpc/init';
import { byResource } from '../auth/permissions';
import { toPublicUser } from '../services/auth';
import { TRPCError } from '@trpc/server';

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

  /** Any signed-in user changes their own password. */
  changePassword: authedProcedure.input(passwordChange).mutation(async ({ ctx, input }) => {
    await ctx.services.users.changeOwnPassword(ctx.principal.username, input.currentPassword, input.newPassword);
    ctx.services.audit.record({ event: 'password_change', actor: ctx.principal.username, ip: ctx.ip, success: true, target: ctx.principal.username });
    return { message: 'Password changed' };
  }),

  /** `POST /api/auth/users` of the security guide: the same as creating a user. */
  createUser: requires('users:write').use(audited('permission_change')).input(userCreate).mutation(({ ctx, input }) => ctx.services.users.create(input)),

  mfaEnable: authedProcedure
    .use(audited('permission_change'))
    .input(z.object({ type: z.literal('totp', { message: "must be 'totp'" }).default('totp'), appName: z.string().min(1).max(100).optional() }).default({ type: 'totp' }))
    .mutation(({ ctx, input }) => ctx.services.mfa.begin(ctx.principal.username, input.appName)),
  mfaVerify: authedProcedure
    .use(audited('permission_change'))
    .input(z.object({ code: z.string().regex(/^\d{6}$/, 'must be a 6-digit code') }))
    .mutation(({ ctx, input }) => ctx.services.mfa.confirm(ctx.principal.username, input.code)),
  mfaDisable: authedProcedure
    .use(audited('permission_change'))
    .input(z.object({ code: z.string().regex(/^\d{6}$/, 'must be a 6-digit code') }))
    .mutation(({ ctx, input }) => ctx.services.mfa.disable(ctx.principal.username, input.code)),

  permissions: authedProcedure.query(({ ctx }): AuthPermissions => {
    const perms = [...ctx.principal.permissions];
    return { username: ctx.principal.username, role: ctx.principal.role, permissions: perms, byResource: byResource(perms) };
  }),
});
