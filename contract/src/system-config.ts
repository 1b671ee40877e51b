import { z } from 'zod';
import { optionalUrl } from './common';

// Section schemas are strict: an unknown key in an update is a typo worth a 400.
export const routingConfig = z.strictObject({
  enableGlobalRoute: z.boolean(),
  enableGroupNameRoute: z.boolean(),
  enableBearerAuth: z.boolean(),
  bearerAuthKey: z.string(),
  skipAuth: z.boolean(),
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

export const systemConfigSections = {
  routing: routingConfig,
  install: installConfig,
  smartRouting: smartRoutingConfig,
  mcpRouter: mcpRouterConfig,
  llm: llmConfig,
};

/** `PUT /api/system-config`: nested sections and/or the flat form; every field optional. */
export const systemConfigUpdate = z.strictObject({
  routing: routingConfig.partial().optional(),
  install: installConfig.partial().optional(),
  smartRouting: smartRoutingConfig.partial().optional(),
  mcpRouter: mcpRouterConfig.partial().optional(),
  llm: llmConfig.partial().optional(),
  nameSeparator: nameSeparator.optional(),
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
  routing: z.looseObject(routingConfig.partial().shape).optional(),
  install: z.looseObject(installConfig.partial().shape).optional(),
  smartRouting: z.looseObject(smartRoutingConfig.partial().shape).optional(),
  mcpRouter: z.looseObject(mcpRouterConfig.partial().shape).optional(),
  llm: z.looseObject(llmConfig.partial().shape).optional(),
  nameSeparator: z.string().optional(),
});
export type SystemConfig = z.infer<typeof systemConfigSchema>;

export const routingDefaults = {
  enableGlobalRoute: true,
  enableGroupNameRoute: true,
  enableBearerAuth: true,
  skipAuth: false,
} as const;

/** System configuration as the API returns it (plain types, no index signatures, so clients infer it). */
export type SystemConfigView = {
  [K in keyof typeof systemConfigSections]?: Partial<z.infer<(typeof systemConfigSections)[K]>>;
} & { nameSeparator?: string };
