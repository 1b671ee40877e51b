import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import type { Group, GroupServerConfig, GroupView, SettingsFile } from '@hub/contract';
import type { Store } from '../store/store';
import type { Principal } from '../auth/principal';
import { findGroup } from '../mcp/catalog';
import { unrestricted } from '../auth/access';

type Entry = Group['servers'][number];
type Sel = 'all' | string[];
const nameOf = (e: Entry) => (typeof e === 'string' ? e : e.name);

function toView(g: Group): GroupView {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    servers: g.servers.map(nameOf),
    serverConfigs: g.servers.map((e) =>
      typeof e === 'string'
        ? { name: e, tools: 'all', prompts: 'all', resources: 'all' }
        : { name: e.name, tools: e.tools ?? 'all', prompts: e.prompts ?? 'all', resources: e.resources ?? 'all' },
    ),
    owner: g.owner,
    visibility: (g.visibility as GroupView['visibility']) ?? 'shared',
  };
}

const notFound = (id: string) => new TRPCError({ code: 'NOT_FOUND', message: `Group ${id} not found` });

/** Groups of servers with per-server selections; agents on a group route see exactly the selection. */
export class GroupsService {
  constructor(private readonly store: Store) {}

  private find(s: Readonly<SettingsFile>, idOrName: string): Group {
    const g = findGroup(s, idOrName);
    if (!g) throw notFound(idOrName);
    return g;
  }

  private checkServers(s: Readonly<SettingsFile>, entries: Entry[], field = 'servers'): void {
    entries.forEach((e, i) => {
      if (!s.mcpServers[nameOf(e)]) {
        throw new TRPCError({ code: 'BAD_REQUEST', message: `${field}.${i}: server ${nameOf(e)} does not exist` });
      }
    });
    const names = entries.map(nameOf);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new TRPCError({ code: 'BAD_REQUEST', message: `${field}: server ${dup} is listed twice` });
  }

  private checkName(s: Readonly<SettingsFile>, name: string, except?: string): void {
    if (s.groups.some((g) => g.name === name && g.id !== except)) {
      throw new TRPCError({ code: 'CONFLICT', message: `A group named ${name} already exists` });
    }
  }

  canSee(principal: Principal, g: Group): boolean {
    return unrestricted(principal) || g.visibility === 'public' || g.owner === principal.username || principal.groups.includes(g.id);
  }

  list(principal: Principal): GroupView[] {
    return this.store.get().groups.filter((g) => this.canSee(principal, g)).map(toView);
  }

  get(principal: Principal, idOrName: string): GroupView {
    const g = this.find(this.store.get(), idOrName);
    if (!this.canSee(principal, g)) throw notFound(idOrName);
    return toView(g);
  }

  async create(principal: Principal, input: { name: string; description?: string; servers?: Entry[]; visibility?: string; owner?: string }): Promise<GroupView> {
    return this.store.update((s) => {
      this.checkName(s, input.name);
      this.checkServers(s, input.servers ?? []);
      const g: Group = {
        id: randomUUID(),
        name: input.name,
        ...(input.description !== undefined ? { description: input.description } : {}),
        servers: input.servers ?? [],
        owner: input.owner ?? principal.username,
        visibility: input.visibility ?? 'shared',
      };
      s.groups.push(g);
      return toView(g);
    });
  }

  async update(idOrName: string, input: { name?: string; description?: string; servers?: Entry[]; visibility?: string; owner?: string }): Promise<GroupView> {
    return this.store.update((s) => {
      const g = this.find(s, idOrName);
      if (input.name !== undefined) (this.checkName(s, input.name, g.id), (g.name = input.name));
      if (input.servers !== undefined) (this.checkServers(s, input.servers), (g.servers = input.servers));
      if (input.description !== undefined) g.description = input.description;
      if (input.visibility !== undefined) g.visibility = input.visibility;
      if (input.owner !== undefined) g.owner = input.owner;
      return toView(g);
    });
  }

  async remove(idOrName: string): Promise<void> {
    await this.store.update((s) => {
      const g = this.find(s, idOrName);
      s.groups = s.groups.filter((x) => x.id !== g.id);
      for (const u of s.users) if (u.groups) u.groups = u.groups.filter((id) => id !== g.id);
    });
  }

  async addServer(idOrName: string, serverName: string): Promise<GroupView> {
    return this.store.update((s) => {
      const g = this.find(s, idOrName);
      if (!s.mcpServers[serverName]) throw new TRPCError({ code: 'NOT_FOUND', message: `Server ${serverName} not found` });
      if (!g.servers.some((e) => nameOf(e) === serverName)) g.servers.push(serverName);
      return toView(g);
    });
  }

  async removeServer(idOrName: string, serverName: string): Promise<GroupView> {
    return this.store.update((s) => {
      const g = this.find(s, idOrName);
      if (!g.servers.some((e) => nameOf(e) === serverName)) throw new TRPCError({ code: 'NOT_FOUND', message: `Server ${serverName} is not in group ${g.name}` });
      g.servers = g.servers.filter((e) => nameOf(e) !== serverName);
      return toView(g);
    });
  }

  serverConfigs(principal: Principal, idOrName: string): GroupView['serverConfigs'] {
    return this.get(principal, idOrName).serverConfigs;
  }

  /** Sets the tool (or prompt or resource) selection of one server of the group. */
  async setSelection(idOrName: string, serverName: string, kind: 'tools' | 'prompts' | 'resources', selection: Sel): Promise<GroupView> {
    return this.setSelections(idOrName, serverName, { [kind]: selection });
  }

  /** Several kinds of a server's selection at once: one write, one change for agents. */
  async setSelections(idOrName: string, serverName: string, selections: Partial<Record<'tools' | 'prompts' | 'resources', Sel>>): Promise<GroupView> {
    return this.store.update((s) => {
      const g = this.find(s, idOrName);
      const i = g.servers.findIndex((e) => nameOf(e) === serverName);
      if (i < 0) throw new TRPCError({ code: 'NOT_FOUND', message: `Server ${serverName} is not in group ${g.name}` });
      const entry: GroupServerConfig = typeof g.servers[i] === 'string' ? { name: serverName } : { ...(g.servers[i] as GroupServerConfig) };
      for (const kind of ['tools', 'prompts', 'resources'] as const) if (selections[kind] !== undefined) entry[kind] = selections[kind];
      g.servers[i] = entry;
      return toView(g);
    });
  }

  /** `POST /api/groups/:groupId/users`: puts a user in the group. */
  async addUser(idOrName: string, username: string): Promise<GroupView> {
    return this.store.update((s) => {
      const g = this.find(s, idOrName);
      const u = s.users.find((x) => x.username === username);
      if (!u) throw new TRPCError({ code: 'NOT_FOUND', message: `User ${username} not found` });
      u.groups = [...new Set([...(u.groups ?? []), g.id])];
      return toView(g);
    });
  }
}
