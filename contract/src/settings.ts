import { z } from 'zod';
import { serverConfigSchema } from './servers';
import { userRecordSchema } from './users';
import { groupSchema } from './groups';
import { systemConfigSchema, type SystemConfigView } from './system-config';
import { apiKeyRecord, bearerKeyRecord } from './auth';
import { toolPin } from './pins';
import { userSecretRecord } from './secrets';

/** The settings file, `mcp_settings.json`, compatible with MCPHub's format. */
export const settingsFileSchema = z.looseObject({
  mcpServers: z.record(z.string().min(1), serverConfigSchema).default({}),
  users: z.array(userRecordSchema).default([]),
  groups: z.array(groupSchema).default([]),
  systemConfig: systemConfigSchema.default({}),
  /** Ids of session tokens ended by logout, kept until they expire. Never returned. */
  revokedTokens: z.array(z.object({ jti: z.string(), exp: z.number() })).optional(),
  /** Hub API keys, stored as hashes. */
  apiKeys: z.array(apiKeyRecord).optional(),
  bearerKeys: z.array(bearerKeyRecord).optional(),
  /** Pinned tool definitions, by server and upstream tool name. */
  toolPins: z.record(z.string(), z.record(z.string(), toolPin)).optional(),
  /** Pinned prompt definitions, the same way. */
  promptPins: z.record(z.string(), z.record(z.string(), toolPin)).optional(),
  /** Per-user upstream credentials, by owner (`user:<name>`, `key:<id>`) and name. Write-only. */
  userSecrets: z.record(z.string(), z.record(z.string(), userSecretRecord)).optional(),
});
export type SettingsFile = z.infer<typeof settingsFileSchema>;

/** `GET /api/settings`: the settings file with secrets removed. */
export type SettingsDump = {
  mcpServers: SettingsFile['mcpServers'];
  servers: SettingsFile['mcpServers'];
  groups: SettingsFile['groups'];
  systemConfig: SystemConfigView;
  users: Array<Omit<SettingsFile['users'][number], 'password'>>;
};

export function emptySettings(): SettingsFile {
  return { mcpServers: {}, users: [], groups: [], systemConfig: {} };
}
