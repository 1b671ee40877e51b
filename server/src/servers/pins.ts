import { createHash } from 'node:crypto';
import { isReservedName, type PinChangeMode, type PinFieldChange, type PinnedDefinition, type SettingsFile, type ToolPin } from '@hub/contract';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

const pinnedFields = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** JSON with object keys sorted, so equal definitions hash equal whatever the key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function pinnedPart(tool: Tool): PinnedDefinition {
  const out: Record<string, unknown> = {};
  for (const f of pinnedFields) if (tool[f] !== undefined) out[f] = tool[f];
  return out as PinnedDefinition;
}

// Tool objects are replaced, never mutated, when an upstream's list changes: hash each once.
const hashes = new WeakMap<object, string>();
export function toolHash(tool: Tool | PinnedDefinition): string {
  let h = hashes.get(tool);
  if (!h) {
    h = createHash('sha256').update(canonical(pinnedPart(tool as Tool))).digest('hex');
    hashes.set(tool, h);
  }
  return h;
}

export function diffDefinitions(before: PinnedDefinition, after: PinnedDefinition): PinFieldChange[] {
  const out: PinFieldChange[] = [];
  for (const f of pinnedFields) {
    if (canonical(before[f]) !== canonical(after[f])) out.push({ field: f, before: before[f] ?? null, after: after[f] ?? null });
  }
  return out;
}

export type PinningSettings = { enabled: boolean; onChange: PinChangeMode };

export function pinning(s: Readonly<SettingsFile>): PinningSettings {
  return { enabled: s.systemConfig.toolPinning?.enabled ?? true, onChange: s.systemConfig.toolPinning?.onChange ?? 'hold' };
}

export function pinOf(s: Readonly<SettingsFile>, server: string, tool: string): ToolPin | undefined {
  const mine = s.toolPins && Object.hasOwn(s.toolPins, server) ? s.toolPins[server] : undefined;
  return mine && Object.hasOwn(mine, tool) ? mine[tool] : undefined;
}

/**
 * The definition agents get for a live tool: the live one while it matches
 * its pin (or has none yet, or pinning is off or `accept`); under `hold` the
 * pinned one; under `hide` none.
 */
export function agreedTool(s: Readonly<SettingsFile>, server: string, tool: Tool): Tool | null {
  const mode = pinning(s);
  if (!mode.enabled) return tool;
  // A name that cannot be a key of the stored pins (__proto__ and the like) cannot be pinned: not served.
  if (isReservedName(tool.name)) return null;
  if (mode.onChange === 'accept') return tool;
  const pin = pinOf(s, server, tool.name);
  if (!pin || pin.hash === toolHash(tool)) return tool;
  if (mode.onChange === 'hide') return null;
  const held: Record<string, unknown> = { ...tool };
  for (const f of pinnedFields) held[f] = pin.definition[f];
  return held as Tool;
}

/** The change of a tool waiting for an admin, if any. */
export function pendingChange(s: Readonly<SettingsFile>, server: string, tool: string): { seenAt: string; changes: PinFieldChange[] } | undefined {
  const pin = pinOf(s, server, tool);
  return pin?.pending ? { seenAt: pin.pending.seenAt, changes: diffDefinitions(pin.definition, pin.pending.definition) } : undefined;
}

/** Every change waiting for an admin, across servers (for views and metrics). */
export function pendingChanges(s: Readonly<SettingsFile>): Array<{ server: string; tool: string; pin: ToolPin & { pending: NonNullable<ToolPin['pending']> } }> {
  const out: Array<{ server: string; tool: string; pin: ToolPin & { pending: NonNullable<ToolPin['pending']> } }> = [];
  for (const [server, pins] of Object.entries(s.toolPins ?? {})) {
    if (!s.mcpServers[server]) continue;
    for (const [tool, pin] of Object.entries(pins)) if (pin.pending) out.push({ server, tool, pin: pin as never });
  }
  return out;
}
