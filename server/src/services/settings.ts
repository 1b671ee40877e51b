import { TRPCError } from '@trpc/server';
import {
  routingDefaults,
  type SettingsDump,
  type SettingsFile,
  type SystemConfig,
  type SystemConfigUpdate,
  type SystemConfigView,
} from '@hub/contract';
import type { Store } from '../store/store';
import type { Principal } from '../auth/principal';
import { keepMasked, MASK, masked, serverSecretPaths, systemSecretPaths } from '../auth/secrets';

const oauthState = ['accessToken', 'refreshToken', 'expiresAt', 'pendingAuthorization'];

/**
 * The settings file without what never leaves Hub (password and key hashes,
 * TOTP secrets, bearer-key tokens, revoked sessions). `masked`: secrets
 * (server env, headers, OAuth client secrets, provider keys, the session
 * secret, database URLs) masked and upstream OAuth tokens left out; `shown`:
 * secrets shown, tokens left out (an admin's view); `all`: everything, for
 * an export that restores a Hub.
 */
function withoutSecrets(s: Readonly<SettingsFile>, mode: 'masked' | 'shown' | 'all'): Record<string, unknown> {
  // Per-user secrets are write-only: not even an export with secrets carries them.
  const { revokedTokens: _revoked, userSecrets: _mine, users, apiKeys, bearerKeys, ...rest } = s;
  const servers = Object.fromEntries(
    Object.entries(s.mcpServers).map(([name, cfg]) => {
      if (mode === 'all' || !cfg.oauth) return [name, mode === 'masked' ? masked(cfg, serverSecretPaths) : cfg];
      const oauth = Object.fromEntries(Object.entries(cfg.oauth).filter(([k]) => !oauthState.includes(k)));
      const clean = { ...cfg, oauth };
      return [name, mode === 'masked' ? masked(clean, serverSecretPaths) : clean];
    }),
  );
  return {
    ...rest,
    mcpServers: servers,
    systemConfig: mode === 'masked' ? masked(s.systemConfig, systemSecretPaths) : s.systemConfig,
    users: users.map(({ password: _password, passwordHistory: _history, mfa, ...u }) => ({ ...u, ...(mfa ? { mfa: { enabled: mfa.enabled } } : {}) })),
    ...(apiKeys ? { apiKeys: apiKeys.map(({ hash: _hash, ...k }) => k) } : {}),
    ...(bearerKeys ? { bearerKeys: bearerKeys.map(({ token: _token, ...k }) => k) } : {}),
  };
}

export class SettingsService {
  constructor(private readonly store: Store) {}

  systemConfig(): Readonly<SystemConfig> {
    return this.store.get().systemConfig;
  }

  routing() {
    return { ...routingDefaults, ...this.store.get().systemConfig.routing };
  }

  /** `GET /api/settings`: secrets shown to admins only. */
  dump(principal: Principal): SettingsDump {
    const clean = withoutSecrets(this.store.get(), principal.role === 'admin' ? 'shown' : 'masked') as SettingsDump;
    return { ...clean, servers: clean.mcpServers };
  }

  /**
   * The settings file as it could be restored elsewhere, minus hashes and
   * session data; secrets only when an admin asks for them.
   */
  exportFile(principal: Principal, includeSecrets = false): Record<string, unknown> {
    if (includeSecrets && principal.role !== 'admin') throw new TRPCError({ code: 'FORBIDDEN', message: 'includeSecrets: only admins may export secrets' });
    return withoutSecrets(this.store.get(), includeSecrets ? 'all' : 'masked');
  }

  async updateSystemConfig(input: SystemConfigUpdate): Promise<SystemConfigView> {
    if (Object.keys(input).length === 0) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: 'body: give at least one of routing, install, smartRouting, mcpRouter, llm or a flat field' });
    }
    // A secret sent back masked (as GET showed it) keeps its stored value.
    keepMasked(input, this.store.get().systemConfig, systemSecretPaths);
    if (input.providerApiKey === MASK) delete input.providerApiKey;
    const { providerApiKey, providerApiBaseUrl, modelName, temperature, maxTokens, nameSeparator, defaultToolVisibility, ...sections } = input;
    const flatSmart = strip({ providerApiKey, providerApiBaseUrl });
    const flatLlm = strip({ modelName, temperature, maxTokens });
    return this.store.update((s) => {
      const sys = s.systemConfig;
      for (const [key, value] of Object.entries(sections) as [keyof typeof sections, Record<string, unknown>][]) {
        if (value) sys[key] = { ...sys[key], ...strip(value) } as never;
      }
      if (Object.keys(flatSmart).length) sys.smartRouting = { ...sys.smartRouting, ...flatSmart };
      if (Object.keys(flatLlm).length) sys.llm = { ...sys.llm, ...flatLlm };
      if (nameSeparator !== undefined) sys.nameSeparator = nameSeparator;
      if (defaultToolVisibility !== undefined) sys.defaultToolVisibility = defaultToolVisibility;
      return structuredClone(sys) as SystemConfigView;
    });
  }
}

function strip<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
