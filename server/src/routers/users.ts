import { z } from 'zod';
import { userCreate, userUpdate } from '@hub/contract';
import { requires, router } from '../trpc/init';

const username = z.object({ username: z.string().min(1) });

export const usersRouter = router({
  list: requires('users:read').query(({ ctx }) => ctx.services.users.list()),
  get: requires('users:read').input(username).query(({ ctx, input }) => ctx.services.users.get(input.username)),
  create: requires('users:write').input(userCreate).mutation(({ ctx, input }) => ctx.services.users.create(input)),
  update: requires('users:write')
    .input(userUpdate.extend(username.shape))
    .mutation(async ({ ctx, input: { username: name, ...change } }) => (await ctx.services.users.update(name, change)).user),
  remove: requires('users:write').input(username).mutation(async ({ ctx, input }) => {
    await ctx.services.users.remove(input.username);
    return { message: `User ${input.username} deleted` };
  }),
  stats: requires('users:read').query(({ ctx }) => ctx.services.users.stats()),
});
