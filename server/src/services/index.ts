import type { Config } from '../config';
import { LowdbStore } from '../store/lowdb-store';
import type { Store } from '../store/store';
import { MemoryBus, type EventBus } from '../events/bus';
import { TokenService } from '../auth/tokens';
import { AuthService } from './auth';
import { SettingsService } from './settings';

export type Services = {
  config: Config;
  store: Store;
  bus: EventBus;
  auth: AuthService;
  settings: SettingsService;
  startedAt: number;
  close(): Promise<void>;
};

export type Bootstrap = { generatedAdminPassword?: string };

export async function createServices(config: Config): Promise<{ services: Services; bootstrap: Bootstrap }> {
  const store = await LowdbStore.open(config.settingsPath);
  const bus = new MemoryBus();
  const tokens = await TokenService.create({
    secret: config.jwtSecret,
    dataDir: config.dataDir,
    expiresInSeconds: config.jwtExpiresInSeconds,
  });
  const auth = new AuthService(store, tokens);
  const settings = new SettingsService(store);
  const stopRelay = store.onChange((revision) =>
    bus.publish('settings.changed', { revision, at: new Date().toISOString() }),
  );
  const generatedAdminPassword = await auth.bootstrapAdmin(config.adminUsername, config.adminPassword);
  const services: Services = {
    config,
    store,
    bus,
    auth,
    settings,
    startedAt: Date.now(),
    async close() {
      stopRelay();
      await store.close();
    },
  };
  return { services, bootstrap: { generatedAdminPassword } };
}
