import Fastify, { LogController, type FastifyHttpsOptions, type FastifyInstance } from 'fastify';
import type { Config } from './config';
import { createServices, type Bootstrap, type Services } from './services';
import { restPlugin, errorBody } from './http/rest';
import { trpcPlugin } from './http/trpc';
import { consoleHtml, consolePlugin } from './http/console';
import { mcpBodyLimit, mcpPlugin } from './http/mcp';
import { createMcpLane } from './http/mcp-lane';
import { registerHostGuard } from './http/host-guard';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';

declare module 'fastify' {
  interface FastifyInstance {
    hub: { services: Services; bootstrap: Bootstrap };
  }
}

const apiPrefixes = ['/api/', '/trpc', '/mcp', '/sse', '/messages', '/oauth/'];

/** Builds the whole Hub app; never listens (main.ts does, tests use inject or port 0). */
export async function buildApp(config: Config): Promise<FastifyInstance> {
  const { services, bootstrap } = await createServices(config);
  const tls = config.https ? { cert: config.https.cert, key: config.https.key } : null;
  const options: FastifyHttpsOptions<https.Server> = {
    logger: { level: config.logLevel },
    // Used for the listen address's scheme; the server itself comes from serverFactory.
    https: tls,
    bodyLimit: config.bodyLimit,
    forceCloseConnections: true,
    // In-session MCP posts that the full route admitted before skip Fastify (http/mcp-lane.ts).
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
      const lane = createMcpLane(services, mcpBodyLimit(config.bodyLimit));
      const listener = (req: IncomingMessage, res: ServerResponse) => {
        if (!lane(req, res)) handler(req, res);
      };
      const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
      server.keepAliveTimeout = 72_000; // Fastify's default, which it sets only on servers it makes
      return server as https.Server;
    },
    // Per-request log lines cost time on the tool-call path; calls are logged by the services.
    logController: new LogController({ disableRequestLogging: true }),
  };
  const app = Fastify(options) as unknown as FastifyInstance;
  app.decorate('hub', { services, bootstrap });
  app.addHook('onClose', async () => services.close());
  registerHostGuard(app, services);

  app.addHook('onResponse', (req, reply, done) => {
    services.metrics.observeRequest(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime);
    // An upgrade answered over HTTP (refused, unknown path) owns a socket the HTTP server no
    // longer tracks: it would stay open, and keep app.close() waiting, until the client left.
    if (req.headers.upgrade) req.raw.socket.destroy();
    done();
  });
  await app.register(trpcPlugin, { services });
  await app.register(restPlugin, { services });
  await app.register(mcpPlugin, { services });
  await app.register(consolePlugin, { dir: config.consoleDir });

  const html = consoleHtml(config.consoleDir);
  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0]!;
    const isApi = apiPrefixes.some((p) => url.startsWith(p));
    if (html && req.method === 'GET' && !isApi && (req.headers.accept ?? '').includes('text/html')) {
      return reply.type('text/html').send(html);
    }
    return reply.code(404).send(errorBody(`Route ${req.method} ${url} not found`, 'NOT_FOUND'));
  });
  app.addHook('onListen', async () => {
    const addr = app.server.address();
    if (addr && typeof addr === 'object') {
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      services.runtime.origin = `${config.https ? 'https' : 'http'}://${host}:${addr.port}`;
    }
  });
  // The listener answers at once; slow upstreams connect in the background.
  app.addHook('onReady', async () => void services.startServers());
  return app;
}
