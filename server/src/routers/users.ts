import { z } from 'zod';
import { nameRef, userCreate, userUpdate } from '@hub/contract';
import { auditEvents } from '../services/audit';
import { audited, requires, router } from '../trpc/init';

const username = z.object({ username: nameRef });

export const usersRouter = router({
  list: requires('users:read').query(({ ctx }) => ctx.services.users.list()),
  get: requires('users:read').input(username).query(({ ctx, input }) => ctx.services.users.get(input.username)),
  create: requires('users:write').use(audited('permission_change')).input(userCreate).mutation(({ ctx, input }) => ctx.services.users.create(input)),
  update: requires('users:write')
    .input(userUpdate.extend(username.shape))
    .mutation(async ({ ctx, input: { username: name, ...change } }) => {
      const { user, before } = await ctx.services.users.update(name, change);
      const record = (event: 'role_change' | 'password_change' | 'permission_change', details: Record<string, unknown>) =>
        ctx.services.audit.record({ event, actor: ctx.principal.username, ip: ctx.ip, success: true, target: name, details });
      if (change.role !== undefined && change.role !== before.role) record('role_change', { from: before.role, to: user.role });
      if (change.password !== undefined) record('password_change', { by: 'admin' });
      if (change.servers !== undefined || change.groups !== undefined) record('permission_change', { servers: user.servers, groups: user.groups });
      return user;
    }),
  remove: requires('users:write').use(audited('permission_change')).input(username).mutation(async ({ ctx, input }) => {
    await ctx.services.users.remove(input.username);
    return { message: `User ${input.username} deleted` };
  }),
  stats: requires('users:read').query(({ ctx }) => ctx.services.users.stats()),
  /** The audit trail (admins). Dates are ISO 8601 or YYYY-MM-DD; an end date alone covers that whole day. */
  audit: requires('users:read')
    .input(
      z.object({
        startDate: z.coerce.date({ message: 'must be a date' }).optional(),
        endDate: z.coerce.date({ message: 'must be a date' }).optional(),
        event: z.enum(auditEvents).optional(),
        user: z.string().optional(),
        limit: z.coerce.number().int().min(1).max(10_000).default(1000),
      }),
    )
    .query(({ ctx, input }) => {
      const end = input.endDate && input.endDate.getUTCHours() === 0 && input.endDate.getUTCMinutes() === 0 ? new Date(input.endDate.getTime() + 86_399_999) : input.endDate;
      return ctx.services.audit.query({ startDate: input.startDate, endDate: end, event: input.event, actor: input.user, limit: input.limit });
    }),
});
