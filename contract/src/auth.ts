import { z } from 'zod';
import type { PublicUser } from './users';
import { isReservedName } from './common';

export const loginInput = z.object({
  username: z.string().min(1, 'is required').max(200),
  password: z.string().min(1, 'is required').max(1024),
  mfaCode: z
    .string()
    .regex(/^\d{6}$/, 'must be a 6-digit code')
    .optional(),
});
export type LoginInput = z.infer<typeof loginInput>;

export type LoginResult = { token: string; user: PublicUser; expiresIn: number };

export const permissionResources = ['servers', 'groups', 'tools', 'prompts', 'logs', 'config', 'users', 'monitoring', 'keys'] as const;
export const permissionActions = ['read', 'write', 'execute'] as const;
export type PermissionResource = (typeof permissionResources)[number];
export type PermissionAction = (typeof permissionActions)[number];
/** `<resource>:<action>` */
export type Permission = `${PermissionResource}:${PermissionAction}`;
export const permission = z.custom<Permission>(
  (v) =>
    typeof v === 'string' &&
    permissionResources.includes(v.split(':')[0] as PermissionResource) &&
    permissionActions.includes(v.split(':')[1] as PermissionAction) &&
    v.split(':').length === 2,
  { message: 'must be <resource>:<action> with a known resource and action' },
);

/** Permissions grouped by resource, as the public config and the console want them. */
export type PermissionMap = Partial<Record<PermissionResource, PermissionAction[]>>;

export type AuthPermissions = {
  username: string | null;
  role: string | null;
  permissions: Permission[];
  byResource: PermissionMap;
};

export const apiKeyCreate = z.strictObject({
  name: z.string().trim().min(1, 'is required').max(100).refine((n) => !isReservedName(n), 'must not be __proto__, constructor or prototype'),
  permissions: z.array(permission).min(1, 'must name at least one permission').max(50),
  expiresAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).optional(),
});

export const apiKeyRecord = z.looseObject({
  id: z.string(),
  name: z.string(),
  /** First characters of the key, to tell keys apart; the key itself is never stored. */
  prefix: z.string(),
  hash: z.string(),
  permissions: z.array(z.string()),
  owner: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().optional(),
  lastUsedAt: z.string().optional(),
});
export type ApiKeyRecord = z.infer<typeof apiKeyRecord>;
/** A key as the API shows it (plain type: loose records do not survive tRPC's type inference). */
export type ApiKeyView = {
  id: string;
  name: string;
  prefix: string;
  permissions: string[];
  owner: string;
  createdAt: string;
  expiresAt?: string;
  lastUsedAt?: string;
};
export type ApiKeyCreated = ApiKeyView & { key: string };

/** MCPHub's multi-key configuration, honoured as it is on the MCP routes. */
export const bearerKeyRecord = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  token: z.string().min(1),
  enabled: z.boolean().default(true),
  accessType: z.enum(['all', 'groups', 'servers', 'custom']).default('all'),
  allowedGroups: z.array(z.string()).optional(),
  allowedServers: z.array(z.string()).optional(),
});
