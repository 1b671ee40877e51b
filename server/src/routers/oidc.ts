import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import { publicProcedure, router } from '../trpc/init';
import { OidcError } from '../auth/oidc';
import { toPublicUser } from '../services/auth';

/** Where the console shows why a sign-in did not work. */
const failed = (err: unknown) => {
  if (!(err instanceof OidcError)) throw err;
  return { location: `/#/login?oidc_error=${encodeURIComponent(err.message)}` };
};

/** Console sign-in with OpenID Connect: browser redirects, then a one-time ticket traded for a session. */
export const oidcRouter = router({
  /** Where to send the browser, with the state it must bring back (a cookie, on REST). */
  start: publicProcedure.query(async ({ ctx }) => {
    try {
      return await ctx.services.oidc.start();
    } catch (err) {
      return { ...failed(err), state: undefined };
    }
  }),
  /** The provider's redirect back: the console's sign-in page, with a ticket or the reason it failed. */
  callback: publicProcedure
    .input(z.object({ query: z.record(z.string(), z.string().max(4000)), state: z.string().max(4000).optional() }))
    .query(async ({ ctx, input }) => {
      try {
        const ticket = await ctx.services.oidc.finish(input.query, input.state);
        return { location: `/#/login?oidc=${encodeURIComponent(ticket)}`, state: undefined };
      } catch (err) {
        return { ...failed(err), state: undefined };
      }
    }),
  exchange: publicProcedure.input(z.object({ ticket: z.string().min(1, 'is required').max(4000) })).mutation(async ({ ctx, input }) => {
    let username: string;
    try {
      username = await ctx.services.oidc.redeem(input.ticket);
    } catch (err) {
      if (err instanceof OidcError) throw new TRPCError({ code: 'UNAUTHORIZED', message: err.message });
      throw err;
    }
    const issued = await ctx.services.auth.issueToken(username);
    ctx.services.audit.record({ event: 'login', actor: username, ip: ctx.ip, success: true, details: { via: 'oidc' } });
    return { ...issued, user: toPublicUser(ctx.services.store.get().users.find((u) => u.username === username)!) };
  }),
});
