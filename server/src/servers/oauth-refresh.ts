import type { Store } from '../store/store';
import type { LogService } from '../monitoring/logs';
import { expandEnv } from './expand';

type StoredOAuth = { clientId?: string; clientSecret?: string; accessToken?: string; refreshToken?: string; expiresAt?: number };

/** Tokens closer than this to expiry are refreshed ahead of time. */
const AHEAD_MS = 5 * 60_000;
const EVERY_MS = 15_000;

/**
 * Refreshes upstream OAuth tokens before they expire, on the leader only, so
 * several replicas (which all read tokens from the shared settings) never
 * race each other with one rotating refresh token. Connections read the
 * stored token on every request, so a refreshed one is used everywhere at once
 * and no replica meets the 401 that would make it refresh on its own.
 */
export class OAuthRefresher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly logs: LogService,
    private readonly env: Readonly<Record<string, string>>,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), EVERY_MS);
    this.timer.unref();
    void this.tick();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One pass over every server; passes never overlap. */
  tick(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const due = Object.entries(this.store.get().mcpServers).filter(([, cfg]) => {
      const o = cfg.oauth as StoredOAuth | undefined;
      return cfg.url && o?.refreshToken && o.expiresAt !== undefined && o.expiresAt - Date.now() < AHEAD_MS;
    });
    for (const [name, cfg] of due) {
      try {
        await this.refresh(name, expandEnv(cfg.url!, this.env), cfg.oauth as StoredOAuth);
      } catch (err) {
        this.logs.add({ type: 'hub', level: 'warn', server: name, message: `OAuth token refresh for ${name} failed: ${(err as Error).message}` });
      }
    }
  }

  private async refresh(name: string, url: string, o: StoredOAuth): Promise<void> {
    // Loaded here: only installations with OAuth upstreams pay for it.
    const auth = await import('@modelcontextprotocol/sdk/client/auth.js');
    let authServer: string | URL = new URL('/', url);
    let resource: URL | undefined;
    try {
      const prm = await auth.discoverOAuthProtectedResourceMetadata(url);
      if (prm.authorization_servers?.[0]) authServer = prm.authorization_servers[0];
      if (prm.resource) resource = new URL(prm.resource);
    } catch {
      // No protected-resource metadata: the server's origin is its authorization server.
    }
    const metadata = await auth.discoverAuthorizationServerMetadata(authServer);
    const tokens = await auth.refreshAuthorization(authServer, {
      metadata,
      clientInformation: { client_id: o.clientId ?? '', ...(o.clientSecret ? { client_secret: o.clientSecret } : {}) },
      refreshToken: o.refreshToken!,
      ...(resource ? { resource } : {}),
    });
    await this.store.update((s) => {
      const cfg = s.mcpServers[name];
      const cur = cfg?.oauth as StoredOAuth | undefined;
      // Someone re-authorized meanwhile: theirs wins.
      if (!cfg || !cur || cur.refreshToken !== o.refreshToken) return;
      cfg.oauth = {
        ...cur,
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token ?? cur.refreshToken,
        expiresAt: tokens.expires_in ? Date.now() + tokens.expires_in * 1000 : undefined,
      };
    });
    this.logs.add({ type: 'hub', level: 'info', server: name, message: `OAuth token of ${name} refreshed` });
  }
}
