import { z } from 'zod';

export const selection = z.union([z.literal('all'), z.array(z.string())]);

export const groupServerConfigSchema = z.looseObject({
  name: z.string().min(1),
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
