import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../services';
import type { Principal } from '../auth/principal';

/** Bearer auth of the MCP routes; null principal when `routing.enableBearerAuth` is off. */
export async function mcpPrincipal(
  services: Services,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<{ ok: true; principal: Principal | null; credential?: string } | { ok: false }> {
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
  return { ok: true, principal: resolved, credential: m[1]! };
}
