export { buildApp } from './app';
export { loadConfig, ConfigError, type Config } from './config';
export type { AppRouter } from './routers';
