import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services';
import type { Principal } from '../auth/principal';

const loopback = ['localhost', '127.0.0.1', '[::1]', '::1'];

// Parsing a URL per request showed in profiles; clients send the same few Host values.
const hostNames = new Map<string, string>();

function hostOf(value: string): string {
  const hit = hostNames.get(value);
  if (hit !== undefined) return hit;
  let name = '';
  try {
    name = new URL(value.includes('://') ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    // not a host
  }
  if (hostNames.size >= 1000) hostNames.clear();
  hostNames.set(value, name);
  return name;
}

/**
 * DNS-rebinding defence for the MCP routes (the SDK's own check is Express
 * middleware): a Hub bound to loopback answers only loopback or configured
 * host names, and a browser Origin must name an allowed host.
 */
// Per Hub, rebuilt only when install.baseUrl changes: this runs on every MCP request.
const cache = new WeakMap<Services, { baseUrl: string | undefined; allowed: Set<string> }>();

function allowedHosts(services: Services): Set<string> {
  const baseUrl = services.settings.systemConfig().install?.baseUrl;
  const hit = cache.get(services);
  if (hit && hit.baseUrl === baseUrl) return hit.allowed;
  const allowed = new Set([...loopback, ...services.config.allowedHosts]);
  if (baseUrl) allowed.add(hostOf(baseUrl));
  if (services.config.host !== '0.0.0.0' && services.config.host !== '::') allowed.add(hostOf(services.config.host));
  cache.set(services, { baseUrl, allowed });
  return allowed;
}

export function hostAllowed(services: Services, req: FastifyRequest): string | null {
  const allowed = allowedHosts(services);
  const bindsAll = services.config.host === '0.0.0.0' || services.config.host === '::';
  const host = hostOf(req.headers.host ?? '');
  const checkHost = !bindsAll || services.config.allowedHosts.length > 0;
  if (checkHost && !allowed.has(host)) return `Host ${req.headers.host} is not allowed`;
  const origin = req.headers.origin;
  if (origin && origin !== 'null') {
    const o = hostOf(origin);
    if (!allowed.has(o) && o !== host) return `Origin ${origin} is not allowed`;
  }
  return null;
}

/** Bearer auth of the MCP routes; null principal when `routing.enableBearerAuth` is off. */
export async function mcpPrincipal(
  services: Services,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<{ ok: true; principal: Principal | null } | { ok: false }> {
  if (!services.settings.routing().enableBearerAuth) return { ok: true, principal: null };
  const header = req.headers.authorization ?? '';
  const apiKey = req.headers['x-api-key'];
  const m = /^Bearer\s+(.+)$/i.exec(header.trim()) ?? (typeof apiKey === 'string' ? [apiKey, apiKey] : null);
  if (!m) {
    reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="hub"')
      .send({ success: false, error: 'Bearer token required', message: 'Bearer token required', code: 'UNAUTHORIZED' });
    return { ok: false };
  }
  const resolved = await services.auth.resolveCredential(m[1]!, { bearerKeys: true });
  if ('error' in resolved) {
    reply
      .code(401)
      .header('www-authenticate', `Bearer realm="hub", error="invalid_token", error_description="${resolved.error}"`)
      .send({ success: false, error: resolved.error, message: resolved.error, code: 'UNAUTHORIZED' });
    return { ok: false };
  }
  return { ok: true, principal: resolved };
}
