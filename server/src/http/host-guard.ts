import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../services';
import { errorBody } from './rest';
import { rpcErrorBody } from '../mcp/http-transport';

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

// Per Hub, rebuilt only when install.baseUrl changes: this runs on every request.
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

/**
 * DNS-rebinding and cross-site defence for every route (the SDK's own check
 * is Express middleware): Hub answers only to loopback, `HOST`,
 * `install.baseUrl`'s host and `MCP_ALLOWED_HOSTS` (bound to all interfaces:
 * also to any IP address, which no rebinding can fake), and a browser's
 * Origin must name one of those or the host itself. Cross-site WebSocket
 * upgrades carry an Origin, so this also guards /trpc.
 */
export function hostAllowed(services: Services, req: { headers: FastifyRequest['headers'] }): string | null {
  const allowed = allowedHosts(services);
  const bindsAll = services.config.host === '0.0.0.0' || services.config.host === '::';
  const host = hostOf(req.headers.host ?? '');
  if (!allowed.has(host) && !(bindsAll && isIP(host.replace(/^\[|\]$/g, '')))) return `Host ${req.headers.host ?? '(none)'} is not allowed`;
  const origin = req.headers.origin;
  if (origin && origin !== 'null') {
    const o = hostOf(origin);
    if (!allowed.has(o) && o !== host) return `Origin ${origin} is not allowed`;
  }
  return null;
}

const mcpPrefixes = ['/mcp', '/api/mcp', '/sse', '/api/sse', '/messages', '/api/messages'];

/** Applies the Host/Origin rule to every request, whatever door: REST, /trpc (and its WebSocket upgrade), MCP, the console. */
export function registerHostGuard(app: FastifyInstance, services: Services): void {
  app.addHook('onRequest', (req, reply, done) => {
    const refused = hostAllowed(services, req);
    if (!refused) return done();
    const url = req.url;
    const mcp = mcpPrefixes.some((p) => url === p || url.startsWith(`${p}/`) || url.startsWith(`${p}?`));
    reply.code(403).send(mcp ? rpcErrorBody(-32000, refused) : errorBody(refused, 'FORBIDDEN'));
  });
}
