import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { forgetSecrets } from './user-secrets';
import type { ApiKeyCreated, ApiKeyRecord, ApiKeyView, Permission } from '@hub/contract';
import type { Store } from '../store/store';
import type { Principal } from '../auth/principal';

// What an agent does over MCP: list and call tools, get prompts, read resources (servers:execute).
const MCP_PERMISSIONS: Permission[] = ['servers:read', 'servers:execute', 'tools:read', 'tools:execute', 'prompts:read', 'prompts:execute'];
export const KEY_PREFIX = 'hub_';

// Keys carry 192 random bits, so a plain SHA-256 is a sound way to store them (no stretching needed).
const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
const view = ({ hash: _hash, ...rest }: ApiKeyRecord): ApiKeyView => rest as ApiKeyView;

/** API keys: shown once, kept as hashes, each limited to its permissions and its owner's access. */
export class KeysService {
  private byHash?: Map<string, ApiKeyRecord>;

  constructor(private readonly store: Store) {
    store.onChange(() => (this.byHash = undefined));
  }

  async create(principal: Principal, input: { name: string; permissions: Permission[]; expiresAt?: string }): Promise<ApiKeyCreated> {
    input.permissions.forEach((p, i) => {
      if (!principal.permissions.has(p)) throw new TRPCError({ code: 'FORBIDDEN', message: `permissions.${i}: you do not hold ${p}` });
    });
    if (input.expiresAt && Date.parse(input.expiresAt) <= Date.now()) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: 'expiresAt: must be in the future' });
    }
    const key = `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
    return this.store.update((s) => {
      const record: ApiKeyRecord = {
        id: randomUUID(),
        name: input.name,
        prefix: key.slice(0, 10),
        hash: hashKey(key),
        permissions: [...new Set(input.permissions)],
        owner: principal.username,
        createdAt: new Date().toISOString(),
        ...(input.expiresAt ? { expiresAt: new Date(input.expiresAt).toISOString() } : {}),
      };
      (s.apiKeys ??= []).push(record);
      return { ...view(record), key };
    });
  }

  list(principal: Principal): ApiKeyView[] {
    const all = this.store.get().apiKeys ?? [];
    return all.filter((k) => principal.role === 'admin' || k.owner === principal.username).map(view);
  }

  async revoke(principal: Principal, id: string): Promise<void> {
    await this.store.update((s) => {
      const k = s.apiKeys?.find((x) => x.id === id);
      if (!k || (principal.role !== 'admin' && k.owner !== principal.username)) throw new TRPCError({ code: 'NOT_FOUND', message: `API key ${id} not found` });
      s.apiKeys = s.apiKeys!.filter((x) => x.id !== id);
      forgetSecrets(s, `key:${id}`);
    });
  }

  /** The key's record if it is valid now. */
  find(key: string): { record: ApiKeyRecord } | { error: string; unknown: boolean } {
    this.byHash ??= new Map((this.store.get().apiKeys ?? []).map((k) => [k.hash, k]));
    const record = this.byHash.get(hashKey(key));
    if (!record) return { error: 'Invalid token or API key', unknown: true };
    if (record.expiresAt && Date.parse(record.expiresAt) <= Date.now()) return { error: 'API key expired', unknown: false };
    return { record };
  }

  /** `routing.bearerAuthKey` of old settings becomes, once, a key with full MCP access owned by an admin. */
  async migrateLegacyBearerKey(): Promise<boolean> {
    const legacy = this.store.get().systemConfig.routing?.bearerAuthKey;
    if (!legacy) return false;
    await this.store.update((s) => {
      const admin = s.users.find((u) => u.role === 'admin' || u.isAdmin);
      const hash = hashKey(legacy);
      if (!(s.apiKeys ?? []).some((k) => k.hash === hash)) {
        (s.apiKeys ??= []).push({
          id: randomUUID(),
          name: 'Migrated routing.bearerAuthKey',
          prefix: legacy.slice(0, 4),
          hash,
          permissions: MCP_PERMISSIONS,
          owner: admin?.username ?? 'admin',
          createdAt: new Date().toISOString(),
        });
      }
      delete s.systemConfig.routing!.bearerAuthKey;
    });
    return true;
  }

  static readonly mcpPermissions = MCP_PERMISSIONS;
}
