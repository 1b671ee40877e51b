import { z } from 'zod';
import type { PublicUser } from './users';

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
