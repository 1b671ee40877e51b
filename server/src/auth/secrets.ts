import type { SettingsFile } from '@hub/contract';

/**
 * What stands in for a secret value shown to someone who may not read it.
 * Sent back unchanged in an update, it means "keep the stored value".
 */
export const MASK = '********';

/** Dotted paths of secret values; `*` is any key of a map, `[]` any element of a list. */
type Paths = readonly string[];

export const serverSecretPaths: Paths = [
  'env.*',
  'headers.*',
  'oauth.clientSecret',
  'oauth.privateKeyPem',
  'oauth.idpIdToken',
  'oauth.idpClientSecret',
  'openapi.security.apiKey.value',
  'openapi.security.http.credentials',
  'openapi.security.oauth2.token',
  'openapi.security.openIdConnect.token',
];

export const systemSecretPaths: Paths = [
  'smartRouting.providerApiKey',
  'smartRouting.dbUrl',
  'session.secret',
  'auth.database.url',
  'auth.oidc.clientSecret',
  'mcpRouter.apiKey',
  'routing.bearerAuthKey',
  'monitoring.webhooks.[].headers.*',
];

type Obj = Record<string, unknown>;
type Key = string | number;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Calls `visit` with the parent, key and full key path of every value a path names. */
function each(root: unknown, path: string, visit: (parent: Obj, key: Key, keys: Key[]) => void, taken: Key[] = []): void {
  const [head, ...rest] = path.split('.');
  const tail = rest.join('.');
  const step = (parent: Obj, key: Key) => {
    const keys = [...taken, key];
    if (!tail) return visit(parent, key, keys);
    each(parent[key as string], tail, visit, keys);
  };
  if (head === '[]') {
    if (Array.isArray(root)) root.forEach((_, i) => step(root as unknown as Obj, i));
  } else if (isObj(root)) {
    if (head === '*') for (const k of Object.keys(root)) step(root, k);
    else if (Object.hasOwn(root, head!)) step(root, head!);
  }
}

function getAt(root: unknown, keys: Key[]): unknown {
  let at = root;
  for (const k of keys) {
    if (typeof k === 'number' ? !Array.isArray(at) : !isObj(at) || !Object.hasOwn(at, k)) return undefined;
    at = (at as Obj)[k as string];
  }
  return at;
}

/** A copy with every non-empty secret string replaced by MASK. */
export function masked<T>(value: T, paths: Paths): T {
  const copy = structuredClone(value);
  for (const p of paths) {
    each(copy, p, (parent, key) => {
      const v = parent[key as string];
      if (typeof v === 'string' && v !== '') parent[key as string] = MASK;
    });
  }
  return copy;
}

/**
 * In an update, a secret sent back as MASK keeps the stored value (from
 * `before`); a MASK with nothing stored behind it is dropped. Changes `next`
 * in place and returns the dotted paths whose stored values were kept.
 */
export function keepMasked(next: unknown, before: unknown, paths: Paths): string[] {
  const kept: string[] = [];
  for (const p of paths) {
    const dropped: Array<[Obj, Key]> = [];
    each(next, p, (parent, key, keys) => {
      if (parent[key as string] !== MASK) return;
      const old = getAt(before, keys);
      if (typeof old === 'string') {
        parent[key as string] = old;
        kept.push(keys.join('.'));
      } else dropped.push([parent, key]);
    });
    for (const [parent, key] of dropped.reverse()) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
    }
  }
  return kept;
}

/** Secret values held in the settings (Hub's own and upstream credentials other than env), for the redactor. */
export function secretValues(s: Readonly<SettingsFile>): string[] {
  const out: string[] = [];
  const collect = (root: unknown, paths: Paths) =>
    paths.forEach((p) =>
      each(root, p, (parent, key) => {
        const v = parent[key as string];
        if (typeof v === 'string') out.push(v);
      }),
    );
  collect(s.systemConfig, systemSecretPaths);
  for (const cfg of Object.values(s.mcpServers)) {
    collect(cfg, serverSecretPaths.filter((p) => p !== 'env.*'));
    collect(cfg, ['oauth.accessToken', 'oauth.refreshToken']);
  }
  for (const mine of Object.values(s.userSecrets ?? {})) for (const v of Object.values(mine)) out.push(v.value);
  return out;
}

/**
 * Everything secret in a settings document: credentials of upstreams and of
 * Hub's integrations, password and key hashes, TOTP secrets, OAuth state.
 * A database store keeps these apart from the readable document.
 */
export const storedSecretPaths: Paths = [
  ...serverSecretPaths.map((p) => `mcpServers.*.${p}`),
  'mcpServers.*.oauth.accessToken',
  'mcpServers.*.oauth.refreshToken',
  'mcpServers.*.oauth.tokens',
  'mcpServers.*.oauth.clientInformation',
  'mcpServers.*.oauth.codeVerifier',
  ...systemSecretPaths.map((p) => `systemConfig.${p}`),
  'users.[].password',
  'users.[].passwordHistory',
  'users.[].mfa.secret',
  'users.[].mfa.pendingSecret',
  'apiKeys.[].hash',
  'bearerKeys.[].token',
  'userSecrets.*.*.value',
];

export type SecretEntry = { path: Key[]; value: unknown };

/** Splits `doc` into a copy without the values `paths` name, and those values with their key paths. */
export function splitSecrets<T>(doc: T, paths: Paths = storedSecretPaths): { open: T; secrets: SecretEntry[] } {
  const open = structuredClone(doc);
  const secrets: SecretEntry[] = [];
  for (const p of paths) {
    each(open, p, (parent, key, keys) => {
      secrets.push({ path: keys, value: parent[key as string] });
      if (!Array.isArray(parent)) delete parent[key as string];
    });
  }
  return { open, secrets };
}

/** Puts the values `splitSecrets` took back in place (in `open`, which it returns). */
export function joinSecrets<T>(open: T, secrets: readonly SecretEntry[]): T {
  for (const { path, value } of secrets) {
    let at: unknown = open;
    for (const k of path.slice(0, -1)) {
      if (typeof at !== 'object' || at === null) break;
      at = (at as Obj)[k as string];
    }
    const last = path.at(-1)!;
    if (typeof at === 'object' && at !== null) {
      // Own data properties only: a key such as "__proto__" stays a plain key.
      Object.defineProperty(at, last, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  return open;
}
