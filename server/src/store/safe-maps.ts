import type { SettingsFile } from '@hub/contract';

type Obj = Record<string, unknown>;

function bare(o: unknown): void {
  if (o && typeof o === 'object' && !Array.isArray(o)) Object.setPrototypeOf(o, null);
}

/**
 * Makes every map of the settings that is keyed by a user-supplied name
 * (servers, their env, headers, tool/prompt/resource overrides, webhook
 * headers) prototype-free, in place: `map[name]` then never reads or writes
 * Object.prototype, whatever the name. Applied to every state a store hands
 * out and to every draft it hands to a change.
 */
export function withSafeMaps<T extends SettingsFile>(s: T): T {
  bare(s.mcpServers);
  for (const name of Object.keys(s.mcpServers)) {
    const cfg = s.mcpServers[name] as Obj;
    for (const key of ['env', 'headers', 'tools', 'prompts', 'resources', 'oauth']) bare(cfg[key]);
    const openapi = cfg.openapi as Obj | undefined;
    if (openapi) bare(openapi.security);
  }
  for (const hook of s.systemConfig.monitoring?.webhooks ?? []) bare(hook.headers);
  for (const pins of [s.toolPins, s.promptPins]) {
    bare(pins);
    for (const server of Object.keys(pins ?? {})) bare(pins![server]);
  }
  bare(s.userSecrets);
  for (const owner of Object.keys(s.userSecrets ?? {})) bare(s.userSecrets![owner]);
  return s;
}

/** A map for names from outside (upstream tool names, owners): no prototype to reach. */
export const bareMap = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** Sets a key of a name-keyed map without `map[name] =`, which `__proto__` would turn into a prototype change. */
export function putKey<T>(map: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}
