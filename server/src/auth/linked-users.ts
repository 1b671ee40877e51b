import { randomBytes } from 'node:crypto';
import type { Role, UserRecord } from '@hub/contract';
import type { Store } from '../store/store';
import { hashPassword } from './passwords';

/** Who vouches for a user that is not local: a gateway's JWT or an OpenID provider. */
export type Identity = { provider: 'forward' | 'oidc'; issuer: string; subject: string };

const sameIdentity = (u: UserRecord, id: Identity) => {
  const l = (u as { identity?: Identity }).identity;
  return l?.provider === id.provider && l.issuer === id.issuer && l.subject === id.subject;
};

/**
 * The Hub user linked to an outside identity, created on first sight with
 * `role` and a password nobody knows. A user of the same name that is not
 * linked to exactly this identity (a local account, another subject) is
 * never taken over. `syncRole`: the role is set to `role` on every sign-in.
 */
export async function linkedUser(store: Store, id: Identity, username: string, role: Role, syncRole = false): Promise<{ user: UserRecord } | { error: string }> {
  const refused = { error: `User ${username} exists in Hub and is not linked to this sign-in` };
  const existing = store.get().users.find((u) => u.username === username);
  if (existing && !sameIdentity(existing, id)) return refused;
  if (existing && (!syncRole || existing.role === role)) return { user: existing };
  const password = existing ? '' : await hashPassword(randomBytes(24).toString('base64url'));
  return store.update((s) => {
    const again = s.users.find((u) => u.username === username);
    if (again && !sameIdentity(again, id)) return refused;
    if (again) {
      if (syncRole) again.role = role;
      return { user: again };
    }
    const user = { username, password, role, servers: [], groups: [], identity: id } as UserRecord;
    s.users.push(user);
    return { user };
  });
}
