import { createHash } from 'node:crypto';
import { isReservedName, type PinChangeMode, type PinFieldChange, type PinnedDefinition, type SettingsFile, type ToolPin } from '@hub/contract';

/** What is pinned: tools (the default) and prompts, each in its own map of the settings. */
export type PinKind = 'tools' | 'prompts';
export const pinKinds: readonly PinKind[] = ['tools', 'prompts'];
const mapOf = { tools: 'toolPins', prompts: 'promptPins' } as const;

/** What an agent reads and trusts: of a tool its schemas and annotations, of a prompt its arguments. */
const pinnedFields = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'arguments'] as const;
export type Item = { name: string } & Partial<Record<(typeof pinnedFields)[number], unknown>>;

/** JSON with object keys sorted, so equal definitions hash equal whatever the key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function pinnedPart(item: Item): PinnedDefinition {
  const out: Record<string, unknown> = {};
  for (const f of pinnedFields) if (item[f] !== undefined) out[f] = item[f];
  return out as PinnedDefinition;
}

// Items are replaced, never mutated, when an upstream's list changes: hash each once.
const hashes = new WeakMap<object, string>();
export function toolHash(item: Item | PinnedDefinition): string {
  let h = hashes.get(item);
  if (!h) {
    h = createHash('sha256').update(canonical(pinnedPart(item as Item))).digest('hex');
    hashes.set(item, h);
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

/** The pins of one kind, by server: the settings' map (absent until the first pin). */
export function pinMap(s: Readonly<SettingsFile>, kind: PinKind): SettingsFile['toolPins'] {
  return s[mapOf[kind]];
}

export function pinMapKey(kind: PinKind): 'toolPins' | 'promptPins' {
  return mapOf[kind];
}

export function pinOf(s: Readonly<SettingsFile>, server: string, name: string, kind: PinKind = 'tools'): ToolPin | undefined {
  const all = pinMap(s, kind);
  const mine = all && Object.hasOwn(all, server) ? all[server] : undefined;
  return mine && Object.hasOwn(mine, name) ? mine[name] : undefined;
}

/**
 * The definition agents get for a live tool or prompt: the live one while it
 * matches its pin (or has none yet, or pinning is off or `accept`); under
 * `hold` the pinned one; under `hide` none.
 */
export function agreedItem<T extends Item>(s: Readonly<SettingsFile>, server: string, item: T, kind: PinKind = 'tools'): T | null {
  const mode = pinning(s);
  if (!mode.enabled) return item;
  // A name that cannot be a key of the stored pins (__proto__ and the like) cannot be pinned: not served.
  if (isReservedName(item.name)) return null;
  if (mode.onChange === 'accept') return item;
  const pin = pinOf(s, server, item.name, kind);
  if (!pin || pin.hash === toolHash(item)) return item;
  if (mode.onChange === 'hide') return null;
  const held: Record<string, unknown> = { ...item };
  for (const f of pinnedFields) held[f] = pin.definition[f];
  return held as T;
}

/** The change of a tool or prompt waiting for an admin, if any. */
export function pendingChange(s: Readonly<SettingsFile>, server: string, name: string, kind: PinKind = 'tools'): { seenAt: string; changes: PinFieldChange[] } | undefined {
  const pin = pinOf(s, server, name, kind);
  return pin?.pending ? { seenAt: pin.pending.seenAt, changes: diffDefinitions(pin.definition, pin.pending.definition) } : undefined;
}

export type Pending = { kind: PinKind; server: string; tool: string; pin: ToolPin & { pending: NonNullable<ToolPin['pending']> } };

/** Every change waiting for an admin, across servers and kinds (for views and metrics). */
export function pendingChanges(s: Readonly<SettingsFile>): Pending[] {
  const out: Pending[] = [];
  for (const kind of pinKinds) {
    for (const [server, pins] of Object.entries(pinMap(s, kind) ?? {})) {
      if (!s.mcpServers[server]) continue;
      for (const [tool, pin] of Object.entries(pins)) if (pin.pending) out.push({ kind, server, tool, pin: pin as never });
    }
  }
  return out;
}
