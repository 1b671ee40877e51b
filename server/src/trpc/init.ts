import { initTRPC, TRPCError } from '@trpc/server';
import type { Permission } from '@hub/contract';
import { refreshContext, type Context } from './context';
import { describeError } from './errors';
import type { AuditEvent } from '../services/audit';

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const { field, issues } = describeError(error);
    return { ...shape, message: describeError(error).message, data: { ...shape.data, field, issues, stack: undefined } };
  },
});

export const router = t.router;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;

export const authedProcedure = t.procedure.use(async ({ ctx, next }) => {
  await refreshContext(ctx);
  if (!ctx.principal) {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: ctx.authError ?? 'No token provided, authorization denied' });
  }
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

/**
 * For what only the person may do, never a key holder: their password, their
 * second factor, their sessions. Needs a signed-in session token (or cookie).
 */
export const sessionProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.principal.kind !== 'user' || !ctx.principal.session) {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'This needs a signed-in session, not an API key' });
  }
  return next();
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

/**
 * Records a successful call in the audit trail: who, from where, which
 * procedure and which resource (never the input itself: it may hold secrets).
 */
export function audited(event: AuditEvent) {
  return t.middleware(async ({ ctx, path, next, getRawInput }) => {
    const result = await next();
    if (result.ok) {
      const raw = ((await getRawInput().catch(() => undefined)) ?? {}) as Record<string, unknown>;
      const target = [raw.name, raw.id, raw.username, raw.server, raw.item].filter((v) => typeof v === 'string').join('/') || undefined;
      ctx.services.audit.record({ event, actor: ctx.principal?.username ?? null, ip: ctx.ip, success: true, target, details: { action: path } });
    }
    return result;
  });
}
