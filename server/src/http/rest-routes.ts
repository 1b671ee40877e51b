import type { Caller } from './caller';
export type RequestParts = {
  body: Record<string, unknown> | undefined;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
};

/** How a procedure's result becomes a response body. */
export type ReplyShape = 'envelope' | 'raw' | 'message' | 'login' | 'download';

export type RestRoute = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  call: (caller: Caller, req: RequestParts) => Promise<unknown>;
  reply?: ReplyShape;
  /** File name for `download` replies. */
  filename?: string;
};

/** Each documented REST path, mapped onto exactly one procedure. */
export const restRoutes: RestRoute[] = [
  { method: 'GET', url: '/health', call: (c) => c.system.health(), reply: 'raw' },
  { method: 'GET', url: '/config', call: (c) => c.system.config() },
  { method: 'GET', url: '/public-config', call: (c) => c.system.publicConfig() },

  { method: 'POST', url: '/api/auth/login', call: (c, r) => c.auth.login(r.body as never), reply: 'login' },
  { method: 'POST', url: '/api/auth/logout', call: (c) => c.auth.logout(), reply: 'message' },
  { method: 'GET', url: '/api/auth/verify', call: (c) => c.auth.verify() },
  { method: 'GET', url: '/api/auth/me', call: (c) => c.auth.verify() },
  { method: 'GET', url: '/api/auth/permissions', call: (c) => c.auth.permissions() },

  { method: 'GET', url: '/api/settings', call: (c) => c.settings.get() },
  { method: 'PUT', url: '/api/system-config', call: (c, r) => c.settings.updateSystemConfig(r.body as never) },
  {
    method: 'GET',
    url: '/api/mcp-settings/export',
    call: (c) => c.settings.export(),
    reply: 'download',
    filename: 'mcp_settings.json',
  },
];
