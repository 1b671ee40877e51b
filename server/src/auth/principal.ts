import type { Permission, Role } from '@hub/contract';

/** Who is calling, resolved once per request or WebSocket connection. */
export type Principal = {
  kind: 'user';
  username: string;
  role: Role;
  servers: readonly string[];
  groups: readonly string[];
  permissions: ReadonlySet<Permission>;
  /** The session token's id and expiry, when the caller used one. */
  session?: { jti: string; exp: number };
};
