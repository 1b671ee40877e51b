import { z } from 'zod';
import { isReservedName, safeKey } from './common';

export const selection = z.union([z.literal('all'), z.array(safeKey)]);

/**
 * A tool as one group offers it (ToolHive's toolsOverride): another name, another
 * description, arguments fixed (hidden from agents, always sent) or defaulted.
 */
export const toolShape = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'may hold only A-Z a-z 0-9 _ . - (at most 64)').optional(),
  description: z.string().max(4000).optional(),
  arguments: z
    .strictObject({
      fixed: z.record(safeKey, z.unknown()).optional(),
      defaults: z.record(safeKey, z.unknown()).optional(),
    })
    .optional(),
});
export type ToolShape = z.infer<typeof toolShape>;
const toolsOverride = z.record(safeKey, toolShape);

export const groupServerConfigSchema = z.looseObject({
  name: z.string().min(1),
  toolsOverride: toolsOverride.optional(),
  tools: selection.optional(),
  prompts: selection.optional(),
  resources: selection.optional(),
});
export type GroupServerConfig = z.infer<typeof groupServerConfigSchema>;

export const groupSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  servers: z.array(z.union([z.string(), groupServerConfigSchema])).default([]),
  owner: z.string().optional(),
});
export type Group = z.infer<typeof groupSchema>;

export const visibilities = ['private', 'shared', 'public'] as const;

const groupName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100)
  .regex(/^[^/\\?#%\p{Cc}]+$/u, 'must not contain / \\ ? # % or control characters')
  .refine((n) => n !== '.' && n !== '..', 'must not be . or ..')
  .refine((n) => !isReservedName(n), 'must not be __proto__, constructor or prototype');
export const groupServerEntry = z.union([
  safeKey.min(1),
  z.strictObject({ name: safeKey.min(1), tools: selection.optional(), prompts: selection.optional(), resources: selection.optional(), toolsOverride: toolsOverride.optional() }),
]);

export const groupCreate = z.strictObject({
  name: groupName,
  description: z.string().max(2000).optional(),
  servers: z.array(groupServerEntry).max(1000).optional(),
  /** private: owner and admins; shared: members; public: every signed-in user. */
  visibility: z.enum(visibilities).optional(),
  owner: z.string().min(1).optional(),
});
export const groupUpdate = groupCreate.partial();

/** A group as the API returns it: `servers` are names, selections are in `serverConfigs`. */
export type GroupView = {
  id: string;
  name: string;
  description?: string;
  servers: string[];
  serverConfigs: Array<{ name: string; tools: 'all' | string[]; prompts: 'all' | string[]; resources: 'all' | string[] }>;
  owner?: string;
  visibility: (typeof visibilities)[number];
};
