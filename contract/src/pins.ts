import { z } from 'zod';

/** What Hub does when an upstream changes a tool it has pinned. */
export const pinChangeMode = z.enum(['hold', 'hide', 'accept'], { message: "must be 'hold', 'hide' or 'accept'" });
export type PinChangeMode = z.infer<typeof pinChangeMode>;

/**
 * Tool pinning: Hub records each tool's definition the first time it sees it.
 * `hold` keeps serving the pinned definition after an upstream changes it,
 * `hide` hides the tool, `accept` takes the new one (each change is still
 * announced); `hold` and `hide` wait for an admin to approve or reject.
 */
export const toolPinningConfig = z.strictObject({
  enabled: z.boolean(),
  onChange: pinChangeMode,
});

/** The parts of a tool that are pinned: what an agent reads and trusts. */
export const pinnedDefinition = z.looseObject({
  name: z.string(),
  /** Of a prompt. */
  arguments: z.unknown().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.unknown().optional(),
  outputSchema: z.unknown().optional(),
  annotations: z.unknown().optional(),
});
export type PinnedDefinition = z.infer<typeof pinnedDefinition>;

export const toolPin = z.looseObject({
  hash: z.string(),
  definition: pinnedDefinition,
  pinnedAt: z.string(),
  /** A changed definition seen since, waiting for an admin. */
  pending: z.looseObject({ hash: z.string(), definition: pinnedDefinition, seenAt: z.string() }).optional(),
  /** The hash of a change an admin rejected (it is not announced again). */
  rejected: z.string().optional(),
});
export type ToolPin = z.infer<typeof toolPin>;

/** One field of a tool that changed. */
export type PinFieldChange = { field: string; before: unknown; after: unknown };

/** `GET /api/tool-changes`: tool (and prompt) definitions an upstream changed after they were pinned. */
export type ToolChange = {
  /** `tools` or `prompts`. */
  kind: 'tools' | 'prompts';
  server: string;
  tool: string;
  pinnedAt: string;
  seenAt: string;
  /** What agents get meanwhile (`systemConfig.toolPinning.onChange`). */
  mode: PinChangeMode;
  changes: PinFieldChange[];
};
