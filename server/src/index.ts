export { buildApp } from './app';
export { loadConfig, ConfigError, type Config } from './config';
export type { AppRouter } from './routers';
/** The REST routes and the router, for tools that list what Hub offers (the access tests check every one). */
export { restRoutes } from './http/rest-routes';
export { appRouter } from './routers';
