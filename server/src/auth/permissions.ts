import {
  permissionActions,
  permissionResources,
  type Permission,
  type PermissionMap,
  type PermissionResource,
  type Role,
} from '@hub/contract';

const all: Permission[] = permissionResources.flatMap((r) => permissionActions.map((a) => `${r}:${a}` as Permission));

/** Role meanings of the security guide (spec 5.10). */
export const rolePermissions: Record<Role, readonly Permission[]> = {
  admin: all,
  manager: [
    'servers:read', 'servers:write', 'servers:execute',
    'groups:read', 'groups:write',
    'tools:read', 'tools:write', 'tools:execute',
    'prompts:read', 'prompts:write', 'prompts:execute',
    'logs:read', 'logs:write',
    'monitoring:read', 'monitoring:write',
    'config:read',
    'keys:read', 'keys:write',
  ],
  user: [
    'servers:read', 'servers:execute',
    'groups:read',
    'tools:read', 'tools:execute',
    'prompts:read', 'prompts:execute',
    'logs:read',
    'keys:read', 'keys:write',
  ],
  viewer: ['servers:read', 'groups:read', 'tools:read', 'prompts:read', 'logs:read'],
  // Uses servers without reading their configuration (command, args, env, headers, URL):
  // no servers:read, so no server views; the tools and prompts of its grants only.
  consumer: ['servers:execute', 'tools:read', 'tools:execute', 'prompts:read', 'prompts:execute', 'keys:read', 'keys:write'],
};

export function byResource(perms: Iterable<Permission>): PermissionMap {
  const map: PermissionMap = {};
  for (const p of perms) {
    const [resource, action] = p.split(':') as [PermissionResource, PermissionMap[PermissionResource] & string];
    (map[resource] ??= []).push(action as never);
  }
  return map;
}
