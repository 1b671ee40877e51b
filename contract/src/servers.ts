import { z } from 'zod';
import { isReservedName, safeKey, stringMap } from './common';

/** Whether tools nobody has switched on or off are offered to agents. */
export const toolVisibility = z.enum(['allow', 'deny'], { message: "must be 'allow' or 'deny'" });

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
    /** Prefix of the names agents see instead of the server name; '' exposes names as they are. */
    namePrefix: z.string().max(40).regex(/^[A-Za-z0-9_.-]*$/, 'may hold only A-Z a-z 0-9 _ . -').optional(),
    /** `deny`: a tool this server adds is hidden from agents until an operator enables it (default: Hub's setting). */
    defaultToolVisibility: toolVisibility.optional(),
    openapi: z
      .looseObject({
        url: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        version: z.string().optional(),
        security: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
    /** OAuth client settings and the tokens Hub saved (MCPHub's field names). */
    oauth: z.looseObject({ clientId: z.string().optional(), clientSecret: z.string().optional(), scopes: z.array(z.string()).optional() }).optional(),
    tools: z.record(safeKey, itemToggle).optional(),
    prompts: z.record(safeKey, itemToggle).optional(),
    resources: z.record(safeKey, itemToggle).optional(),
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

/** A server configuration as an API caller sends it: the stored shape, with URLs checked. */
export const serverConfigInput = serverConfigSchema.superRefine((cfg, ctx) => {
  // A caller's own secret goes only where it authenticates them: headers and env.
  const where = { url: cfg.url, command: cfg.command, args: cfg.args, openapi: cfg.openapi, oauth: cfg.oauth };
  for (const [key, value] of Object.entries(where)) {
    if (value !== undefined && JSON.stringify(value).includes('${user.secret.')) {
      ctx.addIssue({ code: 'custom', path: [key], message: '${user.secret.NAME} may appear only in headers and env' });
    }
  }
  for (const [key, value] of [['url', cfg.url], ['openapi.url', cfg.openapi?.url]] as const) {
    if (value === undefined) continue;
    try {
      const u = new URL(value.replace(/\$\{[^}]+\}/g, 'x'));
      if (!/^https?:$/.test(u.protocol)) throw new Error();
    } catch {
      ctx.addIssue({ code: 'custom', path: key.split('.'), message: 'must be an http(s) URL' });
    }
  }
});

export const itemKinds = ['tools', 'prompts'] as const;
export type ItemKind = (typeof itemKinds)[number];

export type ToolView = {
  name: string;
  /** The name agents see: `<server><separator><tool>`. */
  exposedName?: string;
  description: string;
  /** The upstream's own description, when Hub replaces it. */
  originalDescription?: string;
  enabled: boolean;
  inputSchema?: unknown;
  /** The upstream changed this tool after it was pinned; an admin approves or rejects. */
  change?: { seenAt: string; changes: Array<{ field: string; before: unknown; after: unknown }> };
};

export type PromptView = {
  name: string;
  exposedName?: string;
  description: string;
  originalDescription?: string;
  enabled: boolean;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
  /** The upstream changed this prompt after it was pinned; an admin approves or rejects. */
  change?: { seenAt: string; changes: Array<{ field: string; before: unknown; after: unknown }> };
};

export type ServerView = {
  name: string;
  type: ServerType;
  status: ServerStatus;
  error: string | null;
  enabled: boolean;
  owner?: string;
  authorizationUrl?: string;
  tools: ToolView[];
  prompts: PromptView[];
  resources: Array<{ uri: string; name?: string; description?: string }>;
  config: Record<string, unknown>;
  reconnects: number;
  /** `${user.secret.NAME}` names this server takes from each caller. */
  callerSecrets?: string[];
};

/** `manifest.json` of an MCP bundle (.mcpb), the parts Hub uses. */
export const bundleManifest = z.looseObject({
  manifest_version: z.string().optional(),
  dxt_version: z.string().optional(),
  // The name becomes a folder under bundles/ and a server name.
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.@-]+$/, 'may hold only A-Z a-z 0-9 _ . @ -')
    .refine((n) => !/^\.+$/.test(n), 'must not be only dots')
    .refine((n) => !isReservedName(n), 'must not be __proto__, constructor or prototype'),
  version: z.string().min(1),
  description: z.string().optional(),
  server: z.looseObject({
    type: z.enum(['node', 'python', 'binary', 'uv']),
    entry_point: z.string().min(1),
    mcp_config: z.looseObject({
      command: z.string().min(1),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).optional(),
    }),
  }),
  user_config: z.record(z.string(), z.looseObject({ default: z.unknown().optional() })).optional(),
});
export type BundleManifest = z.infer<typeof bundleManifest>;
