import { loginInput, passwordChange, userCreate, type AuthPermissions } from '@hub/contract';
import { requires } from '../trpc/init';
import { authedProcedure, publicProcedure, router } from '../trpc/init';
import { byResource } from '../auth/permissions';
import { toPublicUser } from '../services/auth';
import { TRPCError } from '@trpc/server';

export const authRouter = router({
  login: publicProcedure.input(loginInput).mutation(({ ctx, input }) => ctx.services.auth.login(input)),

  logout: authedProcedure.mutation(async ({ ctx }) => {
    await ctx.services.auth.logout(ctx.principal);
    return { message: 'Logged out' };
  }),

  verify: authedProcedure.query(({ ctx }) => {
    const user = ctx.services.auth.findUser(ctx.principal.username);
    if (!user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'User no longer exists' });
    return { valid: true, user: toPublicUser(user) };
  }),

  /** Any signed-in user changes their own password. */
  changePassword: authedProcedure.input(passwordChange).mutation(async ({ ctx, input }) => {
    await ctx.services.users.changeOwnPassword(ctx.principal.username, input.currentPassword, input.newPassword);
    return { message: 'Password changed' };
  }),

  /** `POST /api/auth/users` of the security guide: the same as creating a user. */
  createUser: requires('users:write').input(userCreate).mutation(({ ctx, input }) => ctx.services.users.create(input)),

  permissions: authedProcedure.query(({ ctx }): AuthPermissions => {
    const perms = [...ctx.principal.permissions];
    return { username: ctx.principal.username, role: ctx.principal.role, permissions: perms, byResource: byResource(perms) };
  }),
});
