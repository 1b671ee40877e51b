import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { appRouter, type AppRouter } from '../routers';
import { createContext } from '../trpc/context';
import type { Services } from '../services';
import { tokenFromCookie } from './session-cookie';

/**
 * tRPC over WebSocket (and HTTP) at /trpc, in its own scope: the plugin replaces
 * the JSON parser, and @fastify/websocket wraps the handler of every route in
 * its scope (a cost on each MCP request, were it registered app-wide).
 */
export async function trpcPlugin(app: FastifyInstance, opts: { services: Services }) {
  const { services } = opts;
  await app.register(websocket);
  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    useWSS: true,
    keepAlive: { enabled: true, pingMs: 30_000, pongWaitMs: 5_000 },
    trpcOptions: {
      router: appRouter,
      createContext: ({ req, info }) => {
        const params = info.connectionParams ?? {};
        return createContext(services, {
          authorization: req.headers.authorization,
          token: typeof params.token === 'string' && params.token ? params.token : undefined,
          apiKey: typeof params.apiKey === 'string' && params.apiKey ? params.apiKey : undefined,
          cookieToken: tokenFromCookie(services, req.headers.cookie),
          ip: req.ip,
        });
      },
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') app.log.error({ err: error.cause ?? error, path }, 'procedure failed');
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });
}
