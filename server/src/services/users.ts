import { TRPCError } from '@trpc/server';
import { forgetSecrets } from './user-secrets';
import { roleOf, type PublicUser, type Role, type UserRecord, type UserStats } from '@hub/contract';
import type { Store } from '../store/store';
import { hashPassword, verifyPassword } from '../auth/passwords';
import { defaultPolicy, passwordProblem } from '../auth/password-policy';
import { toPublicUser } from './auth';

const notFound = (u: string) => new TRPCError({ code: 'NOT_FOUND', message: `User ${u} not found` });
const isAdmin = (u: UserRecord) => roleOf(u) === 'admin';

/** User accounts (admin only, but for one's own password). */
export class UsersService {
  constructor(private readonly store: Store) {}

  private policy() {
    return { ...defaultPolicy, ...this.store.get().systemConfig.passwordPolicy };
  }

  list(): PublicUser[] {
    return this.store.get().users.map(toPublicUser);
  }

  get(username: string): PublicUser {
    const u = this.store.get().users.find((x) => x.username === username);
    if (!u) throw notFound(username);
    return toPublicUser(u);
  }

  /** Hashes a new password after checking it against the policy and the user's history. */
  private async newHash(user: UserRecord | undefined, password: string): Promise<{ hash: string; history: string[] }> {
    const policy = this.policy();
    const problem = passwordProblem(password, policy);
    if (problem) throw new TRPCError({ code: 'BAD_REQUEST', message: `password: ${problem}` });
    const previous = user ? [user.password, ...(user.passwordHistory ?? [])].slice(0, policy.preventReuse) : [];
    for (const old of previous) {
      if (await verifyPassword(old, password)) {
        throw new TRPCError({ code: 'BAD_REQUEST', message: `password: must differ from the last ${policy.preventReuse} passwords` });
      }
    }
    const history = user ? [user.password, ...(user.passwordHistory ?? [])].slice(0, Math.max(policy.preventReuse, 0)) : [];
    return { hash: await hashPassword(password), history };
  }

  private checkRefs(input: { servers?: string[]; groups?: string[] }): void {
    const s = this.store.get();
    input.servers?.forEach((name, i) => {
      if (!s.mcpServers[name]) throw new TRPCError({ code: 'BAD_REQUEST', message: `servers.${i}: server ${name} does not exist` });
    });
    input.groups?.forEach((id, i) => {
      if (!s.groups.some((g) => g.id === id || g.name === id)) throw new TRPCError({ code: 'BAD_REQUEST', message: `groups.${i}: group ${id} does not exist` });
    });
  }

  /** Group references are stored as ids, whether given by id or name. */
  private groupIds(groups: string[] | undefined): string[] | undefined {
    return groups?.map((g) => this.store.get().groups.find((x) => x.id === g || x.name === g)!.id);
  }

  async create(input: { username: string; password: string; role: Role; email?: string; servers?: string[]; groups?: string[] }): Promise<PublicUser> {
    if (this.store.get().users.some((u) => u.username === input.username)) {
      throw new TRPCError({ code: 'CONFLICT', message: `User ${input.username} already exists` });
    }
    this.checkRefs(input);
    const { hash } = await this.newHash(undefined, input.password);
    return this.store.update((s) => {
      if (s.users.some((u) => u.username === input.username)) throw new TRPCError({ code: 'CONFLICT', message: `User ${input.username} already exists` });
      const user: UserRecord = {
        username: input.username,
        password: hash,
        role: input.role,
        isAdmin: input.role === 'admin',
        ...(input.email ? { email: input.email } : {}),
        servers: input.servers ?? [],
        groups: this.groupIds(input.groups) ?? [],
        passwordChangedAt: new Date().toISOString(),
      };
      s.users.push(user);
      return toPublicUser(user);
    });
  }

  async update(
    username: string,
    input: { password?: string; role?: Role; email?: string | null; servers?: string[]; groups?: string[] },
  ): Promise<{ user: PublicUser; before: PublicUser }> {
    const existing = this.store.get().users.find((u) => u.username === username);
    if (!existing) throw notFound(username);
    this.checkRefs(input);
    const pw = input.password !== undefined ? await this.newHash(existing, input.password) : undefined;
    return this.store.update((s) => {
      const u = s.users.find((x) => x.username === username);
      if (!u) throw notFound(username);
      const before = toPublicUser(u);
      if (input.role !== undefined && input.role !== 'admin' && isAdmin(u) && s.users.filter(isAdmin).length === 1) {
        throw new TRPCError({ code: 'CONFLICT', message: 'role: the last admin cannot be demoted' });
      }
      if (input.role !== undefined) (u.role = input.role), (u.isAdmin = input.role === 'admin');
      if (input.email !== undefined) u.email = input.email;
      if (input.servers !== undefined) u.servers = input.servers;
      if (input.groups !== undefined) u.groups = this.groupIds(input.groups);
      if (pw) {
        u.password = pw.hash;
        u.passwordHistory = pw.history;
        u.passwordChangedAt = new Date().toISOString();
        u.tokenVersion = (u.tokenVersion ?? 0) + 1;
        delete u.generatedPassword;
      }
      return { user: toPublicUser(u), before };
    });
  }

  async changeOwnPassword(username: string, current: string, next: string): Promise<void> {
    const u = this.store.get().users.find((x) => x.username === username);
    if (!u) throw notFound(username);
    if (!(await verifyPassword(u.password, current))) throw new TRPCError({ code: 'BAD_REQUEST', message: 'currentPassword: is not correct' });
    await this.update(username, { password: next });
  }

  async remove(username: string): Promise<void> {
    await this.store.update((s) => {
      const u = s.users.find((x) => x.username === username);
      if (!u) throw notFound(username);
      if (isAdmin(u) && s.users.filter(isAdmin).length === 1) throw new TRPCError({ code: 'CONFLICT', message: 'The last admin cannot be deleted' });
      s.users = s.users.filter((x) => x.username !== username);
      // A later user of the same name must not inherit these credentials.
      forgetSecrets(s, `user:${username}`);
      for (const k of s.apiKeys ?? []) if (k.owner === username) forgetSecrets(s, `key:${k.id}`);
    });
  }

  stats(): UserStats {
    const users = this.store.get().users;
    // Keyed by names from the settings: no prototype to collide with.
    const usersPerServer: Record<string, number> = Object.create(null);
    const usersPerGroup: Record<string, number> = Object.create(null);
    for (const u of users) {
      for (const s of u.servers ?? []) usersPerServer[s] = (usersPerServer[s] ?? 0) + 1;
      for (const g of u.groups ?? []) usersPerGroup[g] = (usersPerGroup[g] ?? 0) + 1;
    }
    const adminUsers = users.filter(isAdmin).length;
    return { totalUsers: users.length, adminUsers, regularUsers: users.length - adminUsers, usersPerServer, usersPerGroup };
  }

  /** True when the policy's maxAge has passed since the password was set. */
  passwordExpired(u: UserRecord): boolean {
    const maxAge = this.policy().maxAge;
    if (!maxAge || !u.passwordChangedAt) return false;
    return Date.now() - Date.parse(u.passwordChangedAt) > maxAge * 1000;
  }
}
