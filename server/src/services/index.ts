import path from 'node:path';
import type { Config } from '../config';
import { openCluster, type Cluster } from '../cluster/cluster';
import { PgFeed } from '../events/pg-feed';
import type { Store } from '../store/store';
import { MemoryBus, type EventBus } from '../events/bus';
import { TokenService } from '../auth/tokens';
import { AuthService } from './auth';
import { KeysService } from './keys';
import { MfaService } from './mfa';
import { DatabaseUsers } from './db-users';
import { SettingsService } from './settings';
import { ServersService } from './servers';
import { ToolsService } from './tools';
import { GroupsService } from './groups';
import { UsersService } from './users';
import { AuditService } from './audit';
import { PinService } from './pins';
import { pendingChanges } from '../servers/pins';
import { UserSecretsService } from './user-secrets';
import { OidcLogin } from '../auth/oidc';
import { OAuthRefresher } from '../servers/oauth-refresh';
import { AgentDirectory } from '../mcp/agent-directory';
import { TaskRouter } from '../mcp/tasks';
import { CatalogService } from '../catalog/service';
import { ServerRegistry } from '../servers/registry';
import { Catalog } from '../mcp/catalog';
import { SessionTable } from '../mcp/sessions';
import type { AgentServerDeps } from '../mcp/agent-server';
import { LogService } from '../monitoring/logs';
import { Metrics } from '../monitoring/metrics';
import { Activity } from '../monitoring/activity';
import { Watchdog } from '../monitoring/watchdog';
import { SmartService } from '../smart/service';
import { Redactor } from '../monitoring/redact';
import { secretValues } from '../auth/secrets';

export type Services = {
  config: Config;
  /** What replicas share, and which one leads (a single Hub: its data folder, and itself). */
  cluster: Cluster;
  /** Other replicas' log entries and tool calls (PostgreSQL only). */
  feed?: { catchUp(): Promise<void> };
  store: Store;
  bus: EventBus;
  auth: AuthService;
  keys: KeysService;
  mfa: MfaService;
  settings: SettingsService;
  registry: ServerRegistry;
  catalog: Catalog;
  servers: ServersService;
  /** Installable servers (the shipped catalogue and configured ones). */
  catalogue: CatalogService;
  tools: ToolsService;
  groups: GroupsService;
  users: UsersService;
  audit: AuditService;
  /** Tool pinning: changed tool definitions waiting for an admin. */
  pins: PinService;
  /** Each caller's own upstream credentials. */
  secrets: UserSecretsService;
  /** Console sign-in with OpenID Connect. */
  oidc: OidcLogin;
  sessions: SessionTable;
  agentDeps: AgentServerDeps;
  logs: LogService;
  metrics: Metrics;
  activity: Activity;
  watchdog: Watchdog;
  redactor: Redactor;
  smart: SmartService;
  startedAt: number;
  /** Facts known only once listening. */
  runtime: { origin: string };
  /** `install.baseUrl`, else the listen address; without a trailing slash. */
  publicUrl(): string;
  /** Connects the enabled servers; resolves when each has had a first attempt. */
  startServers(): Promise<void>;
  close(): Promise<void>;
};

export type Bootstrap = { generatedAdminPassword?: string };

export async function createServices(config: Config): Promise<{ services: Services; bootstrap: Bootstrap }> {
  const cluster = await openCluster(config);
  const store = cluster.store;
  const bus = new MemoryBus();
  const tokens = await TokenService.create({
    secret: config.jwtSecret,
    dataDir: config.dataDir,
    expiresInSeconds: config.jwtExpiresInSeconds,
    shared: cluster.sharedSecret,
  });
  const keys = new KeysService(store);
  const mfa = new MfaService(store);
  const databaseUsers = new DatabaseUsers(store);
  const auth = new AuthService(store, tokens, keys, mfa, databaseUsers, cluster.counters);
  const settings = new SettingsService(store);
  const stopRelay = store.onChange((revision) =>
    bus.publish('settings.changed', { revision, at: new Date().toISOString() }),
  );
  const generatedAdminPassword = await auth.bootstrapAdmin(config.adminUsername, config.adminPassword);
  await keys.migrateLegacyBearerKey();
  const runtime = { origin: `http://${config.host}:${config.port}` };
  // Where clients reach Hub: install.baseUrl, else the address it listens on (never a request's Host).
  const publicUrl = () => (store.get().systemConfig.install?.baseUrl || runtime.origin).replace(/\/$/, '');
  const callbackUrl = () => `${publicUrl()}/oauth/callback`;
  const audit = new AuditService(cluster.audit, store);
  await audit.init();
  // Hub's own secrets and those in the settings never appear in logs or in text shown to callers.
  const redactor = new Redactor();
  redactor.add([...config.ownSecrets, tokens.secret, ...secretValues(store.get())]);
  const stopSecrets = store.onChange(() => redactor.add(secretValues(store.get())));
  const logs = new LogService(bus, redactor, { dir: config.dataDir, ...config.logFiles });
  await logs.init();
  // Agents reachable by upstreams outside calls; the level an agent sets goes to the upstreams it uses.
  const agents = new AgentDirectory(async (server, level) => void (await registry.upstream(server)?.forward('logging/setLevel', { level })));
  const registry: ServerRegistry = new ServerRegistry(store, bus, config, callbackUrl, redactor, logs, agents);
  await registry.init();
  const catalog = new Catalog(store, registry, bus);
  const sessions = new SessionTable(config.mcpSessionTtlSeconds * 1000, cluster.sessions);
  const metrics = new Metrics({
    upstreams: () =>
      Object.keys(store.get().mcpServers).map((name) => {
        const st = registry.state(name);
        return { name, status: st?.status ?? 'disconnected', reconnects: st?.reconnects ?? 0 };
      }),
    sessions: () => sessions.size,
    toolChanges: () => pendingChanges(store.get()),
  });
  const activity = new Activity(bus, logs, metrics, redactor);
  const watchdog = new Watchdog(store, bus, registry, logs, activity);
  // Any replica that records a tool change announces it (only the writer gets it back from the update).
  const pins = new PinService(store, registry, (event, data) => watchdog.emit(event, data), logs);
  const smart = new SmartService(store, catalog, bus, config.dataDir);
  await smart.init();
  // Other replicas' log lines and tool calls show here too (PostgreSQL only).
  const feed = cluster.db && cluster.listener ? new PgFeed(cluster.db, cluster.listener, cluster.replicaId, bus, logs, activity) : undefined;
  await feed?.start();
  // Health checks, alerts and webhooks, and clean-up run once per Hub: on the leader.
  const refresher = new OAuthRefresher(store, logs, config.expansionEnv);
  const stopLeading = cluster.leader.watch((leader) => (leader ? (watchdog.start(), refresher.start()) : (watchdog.stop(), refresher.stop())));
  const retention = setInterval(() => {
    if (!cluster.leader.isLeader) return;
    void cluster.retention();
    void feed?.prune(7).catch(() => undefined);
    void audit.prune().catch(() => undefined);
  }, 10 * 60_000);
  retention.unref();
  // Settings edits reach the live connections whichever door they came through. The
  // store calls this before its update resolves, so a service that just changed a
  // server can read its new live state right away.
  const stopSync = store.onChange(() => void registry.sync());
  // Agent sessions outlive requests: after a change (a logout, a password change, a deleted
  // user or key) each one's credential is checked again, at most one pass at a time.
  let revalidating: Promise<void> | null = null;
  let again = false;
  const revalidate = (): void => {
    if (revalidating) return void (again = true);
    revalidating = sessions
      .revalidate((c) => auth.resolveCredential(c, { bearerKeys: true }), settings.routing().enableBearerAuth)
      .finally(() => {
        revalidating = null;
        if (again) (again = false), revalidate();
      });
  };
  const stopRevalidate = store.onChange(revalidate);
  const services: Services = {
    config,
    cluster,
    feed,
    store,
    bus,
    auth,
    keys,
    mfa,
    settings,
    registry,
    catalog,
    catalogue: new CatalogService(store),
    servers: new ServersService(store, registry, catalog, { bundlesDir: path.join(config.dataDir, 'bundles'), redactor, allowedEnvVars: config.allowedEnvVars }),
    tools: new ToolsService(registry, catalog, activity, redactor),
    groups: new GroupsService(store),
    users: new UsersService(store),
    audit,
    pins,
    secrets: new UserSecretsService(store),
    oidc: new OidcLogin(store, tokens.secret, () => `${publicUrl()}/auth/oidc/callback`),
    sessions,
    agentDeps: { catalog, registry, bus, activity, redactor, version: config.version, agents, pageSize: config.mcpPageSize, tasks: new TaskRouter() },
    logs,
    metrics,
    activity,
    watchdog,
    redactor,
    smart,
    startedAt: Date.now(),
    runtime,
    publicUrl,
    startServers: () => registry.sync(),
    async close() {
      stopRelay();
      stopSecrets();
      stopSync();
      stopRevalidate();
      stopLeading();
      pins.close();
      clearInterval(retention);
      watchdog.stop();
      refresher.stop();
      smart.stop();
      await sessions.closeAll();
      await audit.flush();
      await databaseUsers.close();
      await feed?.close();
      await logs.close();
      await registry.stopAll();
      await store.close();
      await cluster.close();
    },
  };
  return { services, bootstrap: { generatedAdminPassword } };
}
