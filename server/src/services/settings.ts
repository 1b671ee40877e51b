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

/** Keys of the settings file that hold secrets and never leave the hub. */
function withoutSecrets(s: Readonly<SettingsFile>): Record<string, unknown> {
  const { revokedTokens: _revoked, users, apiKeys, bearerKeys, ...rest } = s;
  return {
    ...rest,
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

  dump(): SettingsDump {
    const clean = withoutSecrets(this.store.get()) as SettingsDump;
    return { ...clean, servers: clean.mcpServers };
  }

  /** The settings file as it could be restored elsewhere, minus hashes and session data. */
  exportFile(): Record<string, unknown> {
    return withoutSecrets(this.store.get());
  }

  async updateSystemConfig(input: SystemConfigUpdate): Promise<SystemConfigView> {
    const { providerApiKey, providerApiBaseUrl, modelName, temperature, maxTokens, nameSeparator, ...sections } = input;
    const flatSmart = strip({ providerApiKey, providerApiBaseUrl });
    const flatLlm = strip({ modelName, temperature, maxTokens });
    if (Object.keys(input).length === 0) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: 'body: give at least one of routing, install, smartRouting, mcpRouter, llm or a flat field' });
    }
    return this.store.update((s) => {
      const sys = s.systemConfig;
      for (const [key, value] of Object.entries(sections) as [keyof typeof sections, Record<string, unknown>][]) {
        if (value) sys[key] = { ...sys[key], ...strip(value) } as never;
      }
      if (Object.keys(flatSmart).length) sys.smartRouting = { ...sys.smartRouting, ...flatSmart };
      if (Object.keys(flatLlm).length) sys.llm = { ...sys.llm, ...flatLlm };
      if (nameSeparator !== undefined) sys.nameSeparator = nameSeparator;
      return structuredClone(sys) as SystemConfigView;
    });
  }
}

function strip<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
