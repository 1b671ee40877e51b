import type { Permission, Role } from '@hub/contract';

/** Who is calling, resolved once per request or WebSocket connection. */
export type Principal = {
  kind: 'user' | 'apiKey';
  username: string;
  role: Role;
  servers: readonly string[];
  groups: readonly string[];
  permissions: ReadonlySet<Permission>;
  /** Set for keys that reach every server (MCPHub bearer keys with accessType `all`). */
  allAccess?: boolean;
  /**
   * MCPHub bearer keys limited to some groups or servers: they may open
   * sessions only on those routes, never on the global ones.
   */
  routeBound?: boolean;
  /** The key used, when the caller came with an API key. */
  keyId?: string;
  /** The session token's id and expiry, when the caller used one. */
  session?: { jti: string; exp: number };
  /** When the credential stops working (ms since the epoch), if it ever does. */
  expiresAt?: number;
};
