import { initTRPC, TRPCError } from '@trpc/server';
import type { Permission } from '@hub/contract';
import { refreshContext, type Context } from './context';
import type { Principal } from '../auth/principal';
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

/** The caller, checked now: a valid credential and, if given, the permission. */
export async function authorize(ctx: Context, perm?: Permission): Promise<Principal> {
  await refreshContext(ctx);
  if (!ctx.principal) {
    throw new TRPCError({ code: 'UNAUTHORIZED', message: ctx.authError ?? 'No token provided, authorization denied' });
  }
  if (perm && !ctx.principal.permissions.has(perm)) {
    throw new TRPCError({ code: 'FORBIDDEN', message: `Permission ${perm} required` });
  }
  return ctx.principal;
}

export const authedProcedure = t.procedure.use(async ({ ctx, next }) => {
  const principal = await authorize(ctx);
  return next({ ctx: { ...ctx, principal } });
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
  return t.procedure.use(async ({ ctx, next }) => {
    const principal = await authorize(ctx, perm);
    return next({ ctx: { ...ctx, principal } });
  });
}

/** Like `requires`, for reads of logs and tool-call activity: other replicas' entries are read first. */
export function requiresFeed(perm: Permission) {
  return requires(perm).use(async ({ ctx, next }) => {
    await ctx.services.feed?.catchUp();
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
