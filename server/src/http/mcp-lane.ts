import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import sjson from 'secure-json-parse';
import type { Services } from '../services';
import { rpcError, type NodeStreamableTransport } from '../mcp/http-transport';
import type { LanePass } from '../mcp/sessions';
import type { Principal } from '../auth/principal';

// A pass is re-earned through the full route at least this often (and when the
// caller's token expires), so a credential that lapses outside the settings (a
// database user, say) is re-checked as soon as AuthService's token cache would.
const PASS_MS = 30_000;

const credentialOf = (h: IncomingHttpHeaders) => `${h.authorization ?? ''}\n${h['x-api-key'] ?? ''}`;

/** The pass of a request the full route just admitted; it ends no later than the caller's token. */
export function lanePass(services: Services, req: IncomingMessage, route: string, principal: Principal | null): LanePass {
  const expires = principal?.session ? principal.session.exp * 1000 : Infinity;
  return {
    url: req.url ?? '',
    route,
    revision: services.store.revision,
    credential: credentialOf(req.headers),
    host: req.headers.host,
    origin: req.headers.origin,
    until: Math.min(Date.now() + PASS_MS, expires),
  };
}

/**
 * The MCP routes' fast lane. A POST into a live streamable session whose
 * route, credential, Host and Origin are those the full route admitted,
 * with no settings change since and a pass under 30 s old, goes straight to
 * the session's transport: Fastify's routing, hooks and body parsing were
 * a tenth of Hub's CPU per tool call. Every check stays in the full route
 * (http/mcp.ts); anything that differs in the least takes it. Returns
 * whether the request was taken.
 */
export function createMcpLane(services: Services, bodyLimit: number) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== 'POST') return false;
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? services.sessions.get(id) : undefined;
    const pass = session?.lane;
    if (!session || !pass || session.kind !== 'streamable') return false;
    const h = req.headers;
    if (pass.url !== req.url || pass.revision !== services.store.revision || Date.now() > pass.until) return false;
    if (pass.credential !== credentialOf(h) || pass.host !== h.host || pass.origin !== h.origin) return false;
    if (!(h['content-type'] ?? '').includes('application/json')) return false;

    const started = performance.now();
    res.once('finish', () => services.metrics.observeRequest('POST', pass.route, res.statusCode, performance.now() - started));
    const declared = Number(h['content-length']);
    if (declared > bodyLimit) {
      rpcError(res, 413, -32600, `Request body is larger than ${bodyLimit} bytes`);
      req.resume();
      return true;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > bodyLimit) {
        rpcError(res, 413, -32600, `Request body is larger than ${bodyLimit} bytes`);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      let body: unknown;
      try {
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
        body = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
      } catch {
        return rpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
      }
      void (session.transport as NodeStreamableTransport).handle(req, res, body).catch(() => {
        if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
      });
    });
    return true;
  };
}
