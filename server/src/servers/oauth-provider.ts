import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AddClientAuthentication, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Store } from '../store/store';

type OAuthSettings = {
  clientId?: string;
  clientSecret?: string;
  /**
   * `client_credentials`: a service account, no user in the loop (secret, or a private key JWT).
   * `urn:ietf:params:oauth:grant-type:jwt-bearer`: enterprise-managed authorization (cross-app
   * access): the user's ID token from their IdP is exchanged there for an ID-JAG, which the
   * authorization server takes as a JWT bearer grant.
   */
  grantType?: 'authorization_code' | 'client_credentials' | typeof JWT_BEARER;
  idpTokenEndpoint?: string;
  idpClientId?: string;
  idpClientSecret?: string;
  idpIdToken?: string;
  privateKeyPem?: string;
  signingAlgorithm?: string;
  /** A URL used as client id where the authorization server supports Client ID Metadata Documents. */
  clientMetadataUrl?: string;
  scopes?: string[];
  accessToken?: string;
  refreshToken?: string;
  expiresAt?: number;
  pendingAuthorization?: { authorizationUrl?: string; state?: string; codeVerifier?: string; createdAt?: number };
  /**
   * Where discovery found the authorization server (and the resource metadata URL a
   * 401 advertised): the code exchange after /oauth/callback, on whichever replica
   * it lands, posts to the same token endpoint.
   */
  discovery?: OAuthDiscoveryState;
};

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * OAuth client state of one upstream, kept in its `oauth` settings (MCPHub's
 * field names), so tokens survive restarts. The SDK drives the flow; Hub
 * shows the authorization URL and finishes at GET /oauth/callback.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  constructor(
    private readonly server: string,
    private readonly store: Store,
    private readonly callbackUrl: () => string,
    private readonly onAuthorizationUrl: (url: string) => void,
  ) {}

  private settings(): OAuthSettings {
    return (this.store.get().mcpServers[this.server]?.oauth ?? {}) as OAuthSettings;
  }

  private async save(change: (o: OAuthSettings) => void): Promise<void> {
    await this.store.update((s) => {
      const cfg = s.mcpServers[this.server];
      if (!cfg) return;
      const o = { ...((cfg.oauth ?? {}) as OAuthSettings) };
      change(o);
      cfg.oauth = o;
    });
  }

  /** A grant without a user at a browser. */
  private get clientCredentials(): boolean {
    const g = this.settings().grantType;
    return g === 'client_credentials' || g === JWT_BEARER;
  }

  get redirectUrl(): string | undefined {
    return this.clientCredentials ? undefined : this.callbackUrl();
  }

  /**
   * The configured URL, or Hub's own document when Hub is reached over HTTPS
   * (authorization servers fetch it; see GET /oauth/client-metadata.json).
   */
  get clientMetadataUrl(): string | undefined {
    const own = this.settings().clientMetadataUrl;
    if (own) return own;
    const callback = this.callbackUrl();
    return callback.startsWith('https://') ? callback.replace(/\/oauth\/callback$/, '/oauth/client-metadata.json') : undefined;
  }

  /** Client credentials replace the authorization code grant; absent otherwise, so the SDK's default applies. */
  get prepareTokenRequest(): ((scope?: string) => URLSearchParams | Promise<URLSearchParams>) | undefined {
    const o = this.settings();
    if (o.grantType === JWT_BEARER) return async (scope) => new URLSearchParams({ grant_type: JWT_BEARER, assertion: await this.identityAssertion(scope), ...(scope ? { scope } : {}) });
    if (!this.clientCredentials) return undefined;
    return (scope) => new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  }

  /** RFC 8693 at the user's IdP: their ID token for an ID-JAG addressed to this server's authorization server. */
  private async identityAssertion(scope?: string): Promise<string> {
    const o = this.settings();
    if (!o.idpTokenEndpoint || !o.idpIdToken) throw new Error('oauth.idpTokenEndpoint and oauth.idpIdToken are required for the jwt-bearer grant');
    const discovery = o.discovery;
    const audience = discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
    const resource = discovery?.resourceMetadata?.resource;
    const body = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token: o.idpIdToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      ...(audience ? { audience } : {}),
      ...(resource ? { resource } : {}),
      ...(scope ? { scope } : {}),
      ...(o.idpClientId ? { client_id: o.idpClientId } : {}),
      ...(o.idpClientSecret ? { client_secret: o.idpClientSecret } : {}),
    });
    const res = await fetch(o.idpTokenEndpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body });
    const json = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string; error_description?: string };
    if (!res.ok || !json.access_token) throw new Error(`The IdP refused the token exchange: ${json.error ?? res.status}${json.error_description ? ` (${json.error_description})` : ''}`);
    return json.access_token;
  }

  /** A signed JWT instead of a secret (RFC 7523), when a private key is configured. */
  get addClientAuthentication() {
    const o = this.settings();
    if (!o.privateKeyPem || !o.clientId) return undefined;
    const options = { issuer: o.clientId, subject: o.clientId, privateKey: o.privateKeyPem, alg: o.signingAlgorithm ?? 'RS256' };
    return async (...args: Parameters<AddClientAuthentication>) => {
      // Loaded on first use: only service-account upstreams sign assertions.
      const { createPrivateKeyJwtAuth } = await import('@modelcontextprotocol/sdk/client/auth-extensions.js');
      return createPrivateKeyJwtAuth(options)(...args);
    };
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.settings().clientSecret;
    if (this.clientCredentials) {
      return {
        client_name: 'Hub',
        redirect_uris: [],
        grant_types: [this.settings().grantType === JWT_BEARER ? JWT_BEARER : 'client_credentials'],
        token_endpoint_auth_method: this.settings().privateKeyPem ? 'private_key_jwt' : 'client_secret_basic',
        ...(this.settings().scopes?.length ? { scope: this.settings().scopes!.join(' ') } : {}),
      };
    }
    return {
      client_name: 'Hub',
      redirect_uris: [this.callbackUrl()],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_post' : 'none',
      ...(this.settings().scopes?.length ? { scope: this.settings().scopes!.join(' ') } : {}),
    };
  }

  async state(): Promise<string> {
    const state = randomBytes(16).toString('base64url');
    await this.save((o) => void (o.pendingAuthorization = { ...o.pendingAuthorization, state, createdAt: Date.now() }));
    return state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const o = this.settings();
    return o.clientId ? { client_id: o.clientId, ...(o.clientSecret ? { client_secret: o.clientSecret } : {}) } : undefined;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.save((o) => {
      o.clientId = info.client_id;
      if (info.client_secret) o.clientSecret = info.client_secret;
    });
  }

  tokens(): OAuthTokens | undefined {
    const o = this.settings();
    if (!o.accessToken) return undefined;
    const expiresIn = o.expiresAt ? Math.max(0, Math.floor((o.expiresAt - Date.now()) / 1000)) : undefined;
    return { access_token: o.accessToken, token_type: 'Bearer', refresh_token: o.refreshToken, ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}) };
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.save((o) => {
      o.accessToken = tokens.access_token;
      if (tokens.refresh_token) o.refreshToken = tokens.refresh_token;
      o.expiresAt = tokens.expires_in ? Date.now() + tokens.expires_in * 1000 : undefined;
      delete o.pendingAuthorization;
    });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    await this.save((o) => void (o.pendingAuthorization = { ...o.pendingAuthorization, authorizationUrl: url.toString() }));
    this.onAuthorizationUrl(url.toString());
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.save((o) => void (o.pendingAuthorization = { ...o.pendingAuthorization, codeVerifier }));
  }

  codeVerifier(): string {
    const v = this.settings().pendingAuthorization?.codeVerifier;
    if (!v) throw new Error('No authorization is pending for this server');
    return v;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.settings().discovery;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    // Keep a resource metadata URL learnt earlier: the SDK saves none when it derived it itself.
    await this.save((o) => void (o.discovery = { ...state, resourceMetadataUrl: state.resourceMetadataUrl ?? o.discovery?.resourceMetadataUrl }));
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.save((o) => {
      if (scope === 'all' || scope === 'tokens') (delete o.accessToken, delete o.refreshToken, delete o.expiresAt);
      if (scope === 'all' || scope === 'client') (delete o.clientId, delete o.clientSecret);
      if (scope === 'all' || scope === 'verifier') delete o.pendingAuthorization?.codeVerifier;
      if (scope === 'all' || scope === 'discovery') delete o.discovery;
    });
  }
}

/** The server whose pending authorization carries this state. */
export function serverForState(store: Store, state: string): string | undefined {
  for (const [name, cfg] of Object.entries(store.get().mcpServers)) {
    if ((cfg.oauth as OAuthSettings | undefined)?.pendingAuthorization?.state === state) return name;
  }
  return undefined;
}
