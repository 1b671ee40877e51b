/**
 * Every kind of caller the access matrix tries: nobody, broken credentials,
 * each role, an API key of each single permission, and an MCPHub bearer key
 * scoped to one group. Hub is started on a settings file that already holds
 * the servers, group and bearer key the matrix needs.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT } from 'jose';
import { permissionActions, permissionResources } from '@hub/contract';
import { ADMIN, startHub, tempDir, type TestHub } from './hub';
import { stdioEverything, waitFor } from './mcp';

export const JWT = 'matrix-secret-1234567890';
export const GROUP_KEY = 'mcphub-group-key-123456';
export const GROUP_ID = 'fixed-group-id';
export const allPermissions = permissionResources.flatMap((r) => permissionActions.map((a) => `${r}:${a}`));

export type Caller = {
  name: string;
  kind: 'none' | 'user' | 'key' | 'bearer';
  /** Session token (users), key (API keys) or bearer key. */
  credential?: string;
  username?: string;
  password?: string;
  /** What REST and tRPC grant it; null when they refuse it (401). */
  perms: Set<string> | null;
  /** Whether it reaches the server `everything`. */
  sees: boolean;
  /** Whether it acts with admin's role (stdio servers, bundles, secrets). */
  admin: boolean;
  /** A signed-in session (what MFA, password changes and sign-out-everywhere need). */
  session: boolean;
};

export function restHeaders(c: Caller): Record<string, string> {
  if (!c.credential) return {};
  return c.kind === 'key' ? { 'x-api-key': c.credential } : { authorization: `Bearer ${c.credential}` };
}

export async function matrixHub(): Promise<{ hub: TestHub; callers: Caller[]; relogin: (c: Caller) => Promise<void> }> {
  const dir = await tempDir();
  await writeFile(
    path.join(dir, 'mcp_settings.json'),
    JSON.stringify({
      mcpServers: { everything: stdioEverything(), tmp: { type: 'sse', url: 'http://127.0.0.1:9/sse' } },
      groups: [{ id: GROUP_ID, name: 'fixed', servers: ['everything'], visibility: 'public' }],
      bearerKeys: [{ id: 'gk', name: 'group key', token: GROUP_KEY, enabled: true, accessType: 'groups', allowedGroups: ['fixed'] }],
    }),
  );
  const hub = await startHub({ dir, env: { JWT_SECRET: JWT } });
  const admin = await hub.login();
  await waitFor(async () => (await hub.request('GET', '/api/servers/everything', { token: admin })).body.data.status === 'connected', 20_000, 'everything connected');
  const users = [
    ['viewer', 'viewer', ['everything'], true],
    ['user', 'user', ['everything'], true],
    ['userWithout', 'user', [], false],
    ['manager', 'manager', [], true],
  ] as const;
  for (const [username, role, servers] of users) {
    const res = await hub.request('POST', '/api/users', { token: admin, body: { username, password: `${username}-pass`, role, servers } });
    if (res.status !== 200) throw new Error(`user ${username}: ${JSON.stringify(res.body)}`);
  }
  const permsOf = async (headers: Record<string, string>) => new Set<string>((await hub.request('GET', '/api/auth/permissions', { headers })).body.data.permissions);
  const expired = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('admin')
    .setJti('expired')
    .setExpirationTime(Math.floor(Date.now() / 1000) - 5)
    .sign(new TextEncoder().encode(JWT));
  const callers: Caller[] = [
    { name: 'anonymous', kind: 'none', perms: null, sees: false, admin: false, session: false },
    { name: 'bad token', kind: 'user', credential: 'not-a-token', perms: null, sees: false, admin: false, session: false },
    { name: 'expired token', kind: 'user', credential: expired, perms: null, sees: false, admin: false, session: false },
    { name: 'group-scoped bearer key', kind: 'bearer', credential: GROUP_KEY, perms: null, sees: false, admin: false, session: false },
  ];
  for (const [username, , , sees] of [['admin', 'admin', [], true] as const, ...users]) {
    const password = username === 'admin' ? ADMIN.password : `${username}-pass`;
    const credential = await hub.login(username, password);
    const c: Caller = { name: username, kind: 'user', credential, username, password, perms: null, sees, admin: username === 'admin', session: true };
    c.perms = await permsOf(restHeaders(c));
    callers.push(c);
  }
  for (const perm of allPermissions) {
    const res = await hub.request('POST', '/api/auth/api-keys', { token: admin, body: { name: `only ${perm}`, permissions: [perm] } });
    callers.push({ name: `key ${perm}`, kind: 'key', credential: res.body.data.key, username: 'admin', perms: new Set([perm]), sees: true, admin: true, session: false });
  }
  const relogin = async (c: Caller) => {
    if (c.kind === 'user' && c.password) c.credential = await hub.login(c.username, c.password);
  };
  return { hub, callers, relogin };
}
