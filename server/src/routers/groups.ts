import { z } from 'zod';
import { groupCreate, groupServerEntry, groupUpdate, nameRef, selection } from '@hub/contract';
import { audited, requires, router } from '../trpc/init';

const id = z.object({ id: nameRef });
const serverRef = id.extend({ serverName: nameRef });

export const groupsRouter = router({
  list: requires('groups:read').query(({ ctx }) => ctx.services.groups.list(ctx.principal)),
  get: requires('groups:read').input(id).query(({ ctx, input }) => ctx.services.groups.get(ctx.principal, input.id)),
  create: requires('groups:write').use(audited('config_change')).input(groupCreate).mutation(({ ctx, input }) => ctx.services.groups.create(ctx.principal, input)),
  update: requires('groups:write').use(audited('config_change'))
    .input(groupUpdate.extend(id.shape))
    .mutation(({ ctx, input: { id: groupId, ...rest } }) => ctx.services.groups.update(groupId, rest)),
  remove: requires('groups:write').use(audited('config_change')).input(id).mutation(async ({ ctx, input }) => {
    await ctx.services.groups.remove(input.id);
    return { message: `Group ${input.id} deleted` };
  }),
  addServer: requires('groups:write').use(audited('config_change')).input(serverRef).mutation(({ ctx, input }) => ctx.services.groups.addServer(input.id, input.serverName)),
  removeServer: requires('groups:write').use(audited('config_change')).input(serverRef).mutation(({ ctx, input }) => ctx.services.groups.removeServer(input.id, input.serverName)),
  /** Replaces all servers of the group. */
  setServers: requires('groups:write').use(audited('config_change'))
    .input(id.extend({ servers: z.array(groupServerEntry).max(1000) }))
    .mutation(({ ctx, input }) => ctx.services.groups.update(input.id, { servers: input.servers })),
  serverConfigs: requires('groups:read').input(id).query(({ ctx, input }) => ctx.services.groups.serverConfigs(ctx.principal, input.id)),
  /** Which tools (or prompts, or resources) of one server the group exposes: 'all' or a list. */
  setSelection: requires('groups:write').use(audited('config_change'))
    .input(serverRef.extend({ kind: z.enum(['tools', 'prompts', 'resources']).default('tools'), selection }))
    .mutation(({ ctx, input }) => ctx.services.groups.setSelection(input.id, input.serverName, input.kind, input.selection)),
  /** A server's tools, prompts and resources selections saved together. */
  setSelections: requires('groups:write').use(audited('config_change'))
    .input(serverRef.extend({ tools: selection.optional(), prompts: selection.optional(), resources: selection.optional() }))
    .mutation(({ ctx, input: { id, serverName, ...selections } }) => ctx.services.groups.setSelections(id, serverName, selections)),
  addUser: requires('users:write').use(audited('permission_change'))
    .input(id.extend({ userId: nameRef }))
    .mutation(({ ctx, input }) => ctx.services.groups.addUser(input.id, input.userId)),
});
