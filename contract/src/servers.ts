import { z } from 'zod';
import { stringMap } from './common';

export const serverTypes = ['stdio', 'sse', 'streamable-http', 'openapi'] as const;
export const serverType = z.enum(serverTypes);
export type ServerType = z.infer<typeof serverType>;

const itemToggle = z.looseObject({
  enabled: z.boolean().optional(),
  description: z.string().optional(),
});

/**
 * A server's stored configuration, as MCPHub writes it. Unknown keys are kept
 * (never silently dropped); known keys must have the right types.
 */
export const serverConfigSchema = z
  .looseObject({
    type: serverType.optional(),
    description: z.string().optional(),
    command: z.string().optional(),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    url: z.string().optional(),
    headers: stringMap.optional(),
    enabled: z.boolean().optional(),
    owner: z.string().optional(),
    keepAliveInterval: z.number().int().positive().optional(),
    timeout: z.number().int().positive().optional(),
    openapi: z
      .looseObject({
        url: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        version: z.string().optional(),
        security: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
    tools: z.record(z.string(), itemToggle).optional(),
    prompts: z.record(z.string(), itemToggle).optional(),
    resources: z.record(z.string(), itemToggle).optional(),
  })
  .superRefine((cfg, ctx) => {
    const type = inferServerType(cfg);
    if (type === 'stdio' && !cfg.command) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'is required for a stdio server' });
    }
    if ((type === 'sse' || type === 'streamable-http') && !cfg.url) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: `is required for a ${type} server` });
    }
    if (type === 'openapi' && !cfg.openapi?.url && !cfg.openapi?.schema && !cfg.url) {
      ctx.addIssue({ code: 'custom', path: ['openapi'], message: 'needs url or schema for an openapi server' });
    }
  });
export type ServerConfig = z.infer<typeof serverConfigSchema>;

/** MCPHub files often omit `type`: infer it the way MCPHub does. */
export function inferServerType(cfg: { type?: ServerType; command?: string; url?: string; openapi?: unknown }): ServerType {
  if (cfg.type) return cfg.type;
  if (cfg.openapi) return 'openapi';
  if (cfg.command) return 'stdio';
  return 'sse';
}

export const serverStatuses = ['connecting', 'connected', 'disconnected', 'error', 'disabled', 'oauth_required'] as const;
export type ServerStatus = (typeof serverStatuses)[number];
