import { initTRPC, TRPCError } from '@trpc/server';
import type { Permission } from '@hub/contract';
import type { Context } from './context';
import { describeError } from './errors';

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const { field, issues } = describeError(error);
    return { ...shape, message: describeError(error).message, data: { ...shape.data, field, issues, stack: undefined } };
  },
});

export const router = t.router;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;

export const authedProcedure = t.procedure.use(({ ctx, next }) => {
  if (!ctx.principal) {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: ctx.authError ?? 'No token provided, authorization denied' });
  }
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

/** A procedure open to callers whose role grants `perm`. */
export function requires(perm: Permission) {
  return authedProcedure.use(({ ctx, next }) => {
    if (!ctx.principal.permissions.has(perm)) {
      throw new TRPCError({ code: 'FORBIDDEN', message: `Permission ${perm} required` });
    }
    return next();
  });
}
