import { z } from 'zod';
import { toolVisibility } from './servers';
import { optionalUrl } from './common';
import { toolPinningConfig } from './pins';
import { passwordPolicySchema } from './users';

// Section schemas are strict: an unknown key in an update is a typo worth a 400.
export const routingConfig = z.strictObject({
  enableGlobalRoute: z.boolean(),
  enableGroupNameRoute: z.boolean(),
  enableBearerAuth: z.boolean(),
  bearerAuthKey: z.string(),
  skipAuth: z.boolean(),
  /** `GET|POST /api/tools/:server/:tool` without credentials (MCPHub's contract); false: they need tools:execute. */
  openToolRoutes: z.boolean(),
});

export const installConfig = z.strictObject({
  pythonIndexUrl: optionalUrl,
  jsPackageRegistry: optionalUrl,
  baseUrl: optionalUrl,
});

export const smartRoutingConfig = z.strictObject({
  enabled: z.boolean(),
  dbUrl: z.string(),
  providerApiBaseUrl: optionalUrl,
  providerApiKey: z.string(),
  providerApiEmbeddingModel: z.string(),
});

export const mcpRouterConfig = z.strictObject({
  apiKey: z.string(),
  referer: z.string(),
  title: z.string(),
  baseUrl: optionalUrl,
});

/** Chat-model settings of the flat form; they have no nested counterpart in the spec. */
export const llmConfig = z.strictObject({
  modelName: z.string(),
  temperature: z.number().min(0).max(2),
  maxTokens: z.number().int().positive().max(10_000_000),
});

export const nameSeparator = z
  .string()
  .min(1)
  .max(3)
  .regex(/^[A-Za-z0-9_.~-]+$/, 'must be 1-3 characters from A-Z a-z 0-9 _ . ~ -');

export const rateLimitConfig = z.strictObject({
  enabled: z.boolean(),
  windowMs: z.number().int().min(1000).max(86_400_000),
  max: z.number().int().min(1).max(1_000_000),
  message: z.string().max(500),
  standardHeaders: z.boolean(),
  legacyHeaders: z.boolean(),
  /** Failed logins allowed per username and address per window. */
  loginMax: z.number().int().min(1).max(10_000),
});

export const sessionConfig = z.strictObject({
  enabled: z.boolean(),
  secret: z.string().min(16).max(500),
  cookie: z.strictObject({
    secure: z.boolean(),
    httpOnly: z.boolean(),
    maxAge: z.number().int().min(1000),
    sameSite: z.enum(['strict', 'lax', 'none']),
  }).partial(),
});

/**
 * Trusting a JWT that a gateway in front of Hub sets (in `Authorization: Bearer`):
 * verified against the gateway's JWKS (public-key signatures only), issuer and
 * audience; the username comes from `usernameClaim`.
 */
export const forwardAuthConfig = z.strictObject({
  enabled: z.boolean(),
  jwksUrl: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }),
  issuer: z.string().min(1, 'is required'),
  audience: z.string().min(1, 'is required'),
  usernameClaim: z.string().min(1).max(100),
  defaultRole: z.enum(['manager', 'user', 'viewer', 'consumer']),
});

const loopback = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/**
 * OpenID Connect sign-in for the console (authorization code with PKCE).
 * Users are created on first sign-in with `defaultRole`, linked by issuer and
 * subject; with `roleClaim`, each sign-in sets the role `roleMap` gives the
 * claim's value (or values), else `defaultRole`.
 */
export const oidcConfig = z.strictObject({
  enabled: z.boolean(),
  issuer: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
    .refine((u) => u.startsWith('https:') || loopback.test(new URL(u).hostname), 'must be https (http only on loopback)'),
  clientId: z.string().min(1, 'is required').max(500),
  clientSecret: z.string().max(2000),
  scopes: z.array(z.string().regex(/^[\x21-\x7e]+$/, 'must be a scope name')).max(20),
  usernameClaim: z.string().min(1).max(100),
  defaultRole: z.enum(['manager', 'user', 'viewer', 'consumer']),
  roleClaim: z.string().min(1).max(100),
  roleMap: z.record(z.string().min(1).max(200), z.enum(['admin', 'manager', 'user', 'viewer', 'consumer'])),
  /** The console's sign-in button: "Sign in with <buttonLabel>". */
  buttonLabel: z.string().min(1).max(60),
});

export const authConfig = z.strictObject({
  provider: z.enum(['local', 'database']),
  database: z.strictObject({ url: z.string().min(1), userTable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*$/, 'must be a table name') }).partial(),
  forwardAuth: forwardAuthConfig.partial(),
  oidc: oidcConfig.partial(),
});

export const auditConfig = z.strictObject({
  enabled: z.boolean(),
  events: z.array(z.enum(['login', 'logout', 'password_change', 'role_change', 'permission_change', 'server_access', 'config_change'])),
});

export const webhookConfig = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** `server.down`, `server.up`, `error.rate.high`, `alert`, or `*`. */
  events: z.array(z.string().min(1)).min(1),
  headers: z.record(z.string(), z.string()).optional(),
});

export const alertRule = z.strictObject({
  name: z.string().min(1).max(100),
  /** `server_down`, `error_rate > 0.2`, `latency_p99 > 1000` (ms). */
  condition: z.string().regex(/^(server_down|(error_rate|latency_p99)\s*>\s*\d+(\.\d+)?)$/, 'must be server_down, error_rate > N or latency_p99 > N'),
  /** How long the condition must hold, e.g. `30s`, `5m`. */
  duration: z.string().regex(/^\d+(ms|s|m|h)?$/, 'must be a duration such as 30s or 5m').default('0s'),
  severity: z.enum(['critical', 'warning', 'info']).default('warning'),
  /** Webhook URLs to notify; empty means every webhook subscribed to `alert`. */
  channels: z.array(z.string()).default([]),
});

export const monitoringConfig = z.strictObject({
  healthCheck: z.strictObject({
    enabled: z.boolean(),
    interval: z.number().int().min(1000),
    timeout: z.number().int().min(100),
    retries: z.number().int().min(1).max(100),
  }).partial(),
  webhooks: z.array(webhookConfig).max(100),
  alerts: z.array(alertRule).max(100),
});

/** Catalogues of installable servers fetched from these addresses, besides the one shipped with Hub. */
export const catalogConfig = z.strictObject({
  urls: z.array(z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' })).max(10, 'at most 10 catalogues'),
});

/** One installable server of a catalogue (MCPHub Market's fields). */
export const catalogEntry = z.looseObject({
  name: z.string().min(1).max(100),
  description: z.string().max(2000).default(''),
  command: z.string().min(1).max(1000),
  args: z.array(z.string().max(4096)).max(100).default([]),
  /** Variables the user fills in before installing. */
  env: z.record(z.string(), z.object({ description: z.string().max(500).default(''), required: z.boolean().default(false) })).default({}),
  tags: z.array(z.string().max(50)).max(20).default([]),
  homepage: z.string().max(500).optional(),
});
export type CatalogEntry = z.infer<typeof catalogEntry>;

export const systemConfigSections = {
  catalog: catalogConfig,
  monitoring: monitoringConfig,
  passwordPolicy: passwordPolicySchema,
  rateLimit: rateLimitConfig,
  session: sessionConfig,
  auth: authConfig,
  audit: auditConfig,
  routing: routingConfig,
  install: installConfig,
  smartRouting: smartRoutingConfig,
  mcpRouter: mcpRouterConfig,
  llm: llmConfig,
  toolPinning: toolPinningConfig,
};

/** `PUT /api/system-config`: nested sections and/or the flat form; every field optional. */
export const systemConfigUpdate = z.strictObject({
  catalog: catalogConfig.partial().optional(),
  routing: routingConfig.partial().optional(),
  install: installConfig.partial().optional(),
  smartRouting: smartRoutingConfig.partial().optional(),
  mcpRouter: mcpRouterConfig.partial().optional(),
  llm: llmConfig.partial().optional(),
  passwordPolicy: passwordPolicySchema.partial().optional(),
  rateLimit: rateLimitConfig.partial().optional(),
  session: sessionConfig.partial().optional(),
  auth: authConfig.partial().optional(),
  audit: auditConfig.partial().optional(),
  monitoring: monitoringConfig.partial().optional(),
  toolPinning: toolPinningConfig.partial().optional(),
  nameSeparator: nameSeparator.optional(),
  /** `deny`: tools of any server are hidden from agents until an operator enables them. */
  defaultToolVisibility: toolVisibility.optional(),
  // flat form
  providerApiKey: z.string().optional(),
  providerApiBaseUrl: optionalUrl.optional(),
  modelName: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().max(10_000_000).optional(),
});
export type SystemConfigUpdate = z.infer<typeof systemConfigUpdate>;

/** The stored form: sections are loose so keys written by MCPHub or newer Hubs survive. */
export const systemConfigSchema = z.looseObject({
  catalog: z.looseObject(catalogConfig.partial().shape).optional(),
  routing: z.looseObject(routingConfig.partial().shape).optional(),
  install: z.looseObject(installConfig.partial().shape).optional(),
  smartRouting: z.looseObject(smartRoutingConfig.partial().shape).optional(),
  mcpRouter: z.looseObject(mcpRouterConfig.partial().shape).optional(),
  llm: z.looseObject(llmConfig.partial().shape).optional(),
  passwordPolicy: z.looseObject(passwordPolicySchema.partial().shape).optional(),
  rateLimit: z.looseObject(rateLimitConfig.partial().shape).optional(),
  session: z.looseObject(sessionConfig.partial().shape).optional(),
  auth: z.looseObject(authConfig.partial().shape).optional(),
  audit: z.looseObject(auditConfig.partial().shape).optional(),
  monitoring: z.looseObject(monitoringConfig.partial().shape).optional(),
  toolPinning: z.looseObject(toolPinningConfig.partial().shape).optional(),
  nameSeparator: z.string().optional(),
  defaultToolVisibility: toolVisibility.optional(),
});
export type SystemConfig = z.infer<typeof systemConfigSchema>;

export const routingDefaults = {
  enableGlobalRoute: true,
  enableGroupNameRoute: true,
  enableBearerAuth: true,
  skipAuth: false,
  openToolRoutes: true,
} as const;

/** System configuration as the API returns it (plain types, no index signatures, so clients infer it). */
export type SystemConfigView = {
  [K in keyof typeof systemConfigSections]?: Partial<z.infer<(typeof systemConfigSections)[K]>>;
} & { nameSeparator?: string };
