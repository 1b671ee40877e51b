import { loginInput, type AuthPermissions } from '@hub/contract';
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

  permissions: authedProcedure.query(({ ctx }): AuthPermissions => {
    const perms = [...ctx.principal.permissions];
    return { username: ctx.principal.username, role: ctx.principal.role, permissions: perms, byResource: byResource(perms) };
  }),
});
