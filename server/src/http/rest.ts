import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { ErrorEnvelope } from '@hub/contract';
import { createCaller } from './caller';
import { createContext } from '../trpc/context';
import { describeError } from '../trpc/errors';
import type { Services } from '../services';
import { restRoutes, type RestRoute } from './rest-routes';
import { acceptMultipart, readUpload } from './upload';
import { BUNDLE_LIMITS } from '../servers/bundle';
import { registerRateLimit } from './rate-limit';
import { clearSessionCookie, oidcStateCookie, setSessionCookie, tokenFromCookie } from './session-cookie';

export function errorBody(message: string, code: string, field?: string): ErrorEnvelope {
  return { success: false, error: message, message, code, ...(field ? { field } : {}) };
}

/** The one place where errors become HTTP statuses and bodies. */
export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof TRPCError) {
    const status = getHTTPStatusCodeFromError(err);
    if (status >= 500) reply.log.error({ err: err.cause ?? err }, 'procedure failed');
    const d = describeError(err);
    const message = status >= 500 ? 'Internal server error' : d.message;
    return reply.code(status).send({ ...errorBody(message, err.code, d.field), ...(d.issues ? { issues: d.issues } : {}) });
  }
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    // Fastify's own refusals: bad JSON, body too large, unsupported media type.
    const message = e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(e.message ?? '') ? `body: ${e.message}` : e.message ?? 'Bad request';
    const code = { 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 404: 'NOT_FOUND', 429: 'TOO_MANY_REQUESTS' }[e.statusCode] ?? 'BAD_REQUEST';
    return reply.code(e.statusCode).send(errorBody(message, code));
  }
  reply.log.error({ err }, 'unexpected error');
  return reply.code(500).send(errorBody('Internal server error', 'INTERNAL_SERVER_ERROR'));
}

function shape(route: RestRoute, reply: FastifyReply, data: unknown, secure = false) {
  switch (route.reply ?? 'envelope') {
    case 'raw':
      return data;
    case 'message': {
      const { message, ...rest } = (data ?? {}) as { message?: string };
      return { success: true, message, data: Object.keys(rest).length ? rest : null };
    }
    case 'login':
      return { success: true, message: 'Login successful', ...(data as object), data };
    case 'html': {
      const { message } = data as { message: string };
      reply.type('text/html; charset=utf-8');
      return `<!doctype html><meta charset="utf-8"><title>Hub</title><p>${escapeHtml(message)}. You can close this window.</p>`;
    }
    case 'text': {
      const { text, contentType } = data as { text: string; contentType: string };
      reply.type(contentType);
      return text;
    }
    case 'redirect': {
      const d = data as { location: string; state?: string };
      if ('state' in d) reply.header('set-cookie', oidcStateCookie(d.state, secure));
      reply.code(302).header('location', d.location);
      return '';
    }
    case 'download':
      reply.header('content-disposition', `attachment; filename="${route.filename}"`);
      reply.type('application/json');
      return JSON.stringify(data, null, 2);
    default:
      return { success: true, data };
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export async function restPlugin(app: FastifyInstance, opts: { services: Services }) {
  const { services } = opts;
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  // Clients often send `Content-Type: application/json` with no body on POST/DELETE.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    defaultJson(req, body as string, done);
  });
  app.setErrorHandler((err, _req, reply) => sendError(reply, err));
  await registerRateLimit(app, services);
  acceptMultipart(app);

  for (const route of restRoutes) {
    app.route({
      method: route.method,
      url: route.url,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        let file: Buffer | undefined;
        if (route.upload) {
          const got = await readUpload(req, route.upload, BUNDLE_LIMITS.compressed);
          if ('error' in got) return reply.code(got.status).send(errorBody(got.error, got.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', route.upload));
          file = got.file;
        } else if (req.body !== undefined && !isPlainObject(req.body)) {
          return reply.code(400).send(errorBody('body: must be a JSON object', 'BAD_REQUEST', 'body'));
        }
        try {
          const apiKey = req.headers['x-api-key'];
          const ctx = await createContext(services, {
            authorization: req.headers.authorization,
            apiKey: typeof apiKey === 'string' ? apiKey : undefined,
            cookieToken: tokenFromCookie(services, req.headers.cookie),
            ip: req.ip,
          });
          const parts = {
            body: req.body as Record<string, unknown> | undefined,
            params: req.params as Record<string, string>,
            query: req.query as Record<string, string>,
            headers: req.headers as Record<string, string | undefined>,
            file,
          };
          if (route.sse) return await streamEvents(req, reply, (signal) => route.sse!(createCaller(ctx, { signal }), parts), route.sseEvents);
          const data = await route.call(createCaller(ctx), parts);
          const sessionId = req.headers['x-session-id'];
          if (typeof sessionId === 'string') reply.header('x-session-id', sessionId);
          if (route.session === 'start') setSessionCookie(services, reply, (data as { token: string }).token);
          if (route.session === 'end') clearSessionCookie(reply);
          return shape(route, reply, data, services.publicUrl().startsWith('https:'));
        } catch (err) {
          return sendError(reply, err);
        }
      },
    });
  }
}

/**
 * Streams a subscription as Server-Sent Events: `id` from tracked events (so
 * clients resume with Last-Event-ID), a comment every 15 s so proxies keep
 * the connection open, and the subscription ended when the client goes.
 */
async function streamEvents(
  req: FastifyRequest,
  reply: FastifyReply,
  open: (signal: AbortSignal) => Promise<AsyncIterable<unknown>>,
  split: RestRoute['sseEvents'] = (id, data) => [{ id, data }],
) {
  const abort = new AbortController();
  const events = await open(abort.signal); // auth and input errors surface here, before the stream starts
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.write(': connected\n\n');
  const heartbeat = setInterval(() => res.write(': ping\n\n'), 15_000);
  const iterator = events[Symbol.asyncIterator]();
  res.once('close', () => {
    clearInterval(heartbeat);
    abort.abort();
    void iterator.return?.();
  });
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      // createCaller yields tracked events as [id, data, symbol] tuples.
      const [id, data] = Array.isArray(next.value) ? next.value : [undefined, next.value];
      if (!res.writable) break;
      // One write per subscription event, however many SSE events it holds.
      res.write(split(id, data).map((e) => `${e.id !== undefined ? `id: ${e.id}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`).join(''));
    }
  } catch (err) {
    if (!abort.signal.aborted) req.log.warn({ err }, 'event stream ended with an error');
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
  return reply;
}
