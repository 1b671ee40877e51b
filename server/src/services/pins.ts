import { TRPCError } from '@trpc/server';
import { isReservedName, type SettingsFile, type ToolChange, type ToolPin } from '@hub/contract';
import type { Store } from '../store/store';
import { bareMap, putKey } from '../store/safe-maps';
import type { ServerRegistry } from '../servers/registry';
import type { LogService } from '../monitoring/logs';
import type { Principal } from '../auth/principal';
import { visibleServers } from '../auth/access';
import { diffDefinitions, pendingChanges, pinKinds, pinMapKey, pinnedPart, pinning, pinOf, toolHash, type Item, type PinKind } from '../servers/pins';


type Announce = (event: string, data: Record<string, unknown>) => void;

/**
 * Tool pinning: records each tool's definition on first sight, notices when
 * an upstream changes it (a "rug pull") and keeps that change waiting for an
 * admin; prompts the same way. What agents get meanwhile is decided in the
 * catalog (`agreedItem`).
 */
export class PinService {
  private readonly stop: () => void;

  constructor(
    private readonly store: Store,
    private readonly registry: ServerRegistry,
    private readonly announce: Announce,
    private readonly logs: LogService,
  ) {
    const offLists = registry.onChange((name, what) => {
      if (what === 'lists') void this.reconcile(name).catch(() => undefined);
    });
    // Pinning switched (back) on: what changed meanwhile is recorded now, not at the next list change.
    let enabled = pinning(store.get()).enabled;
    const offSettings = store.onChange(() => {
      const now = pinning(store.get()).enabled;
      if (now && !enabled) for (const name of Object.keys(store.get().mcpServers)) void this.reconcile(name).catch(() => undefined);
      enabled = now;
    });
    this.stop = () => (offLists(), offSettings());
  }

  close(): void {
    this.stop();
  }

  /** Pins new tools and prompts and records changed ones of a server's live lists. */
  async reconcile(server: string): Promise<void> {
    // The live lists (of a caller's connection, when the server's own one cannot list without secrets).
    const state = this.registry.state(server);
    if (!state || state.cached || !pinning(this.store.get()).enabled) return;
    for (const kind of pinKinds) await this.reconcileKind(server, kind, kind === 'tools' ? state.tools : state.prompts);
  }

  private async reconcileKind(server: string, kind: PinKind, items: readonly Item[]): Promise<void> {
    if (!items.some((t) => !isReservedName(t.name) && this.needsWrite(this.store.get(), server, t, kind))) return;
    // Decided again on the state the write applies to: another replica may have recorded it first.
    const announced = await this.store.update((draft) => {
      const out: Array<{ name: string; pin: ToolPin; changes: ReturnType<typeof diffDefinitions> }> = [];
      if (!draft.mcpServers[server]) return out;
      const mode = pinning(draft).onChange;
      const all = (draft[pinMapKey(kind)] ??= bareMap());
      if (!Object.hasOwn(all, server)) putKey(all, server, bareMap<ToolPin>());
      const pins = all[server]!;
      const now = new Date().toISOString();
      for (const item of items) {
        if (isReservedName(item.name) || !this.needsWrite(draft, server, item, kind)) continue;
        const pin = pinOf(draft, server, item.name, kind);
        const hash = toolHash(item);
        const definition = pinnedPart(item);
        if (!pin) putKey(pins, item.name, { hash, definition, pinnedAt: now });
        else if (pin.hash === hash) putKey(pins, item.name, { hash, definition: pin.definition, pinnedAt: pin.pinnedAt });
        else {
          const changes = diffDefinitions(pin.definition, definition);
          const next: ToolPin = mode === 'accept' ? { hash, definition, pinnedAt: now } : { ...pin, pending: { hash, definition, seenAt: now } };
          putKey(pins, item.name, next);
          out.push({ name: item.name, pin: next, changes });
        }
      }
      return out;
    });
    const mode = pinning(this.store.get()).onChange;
    const noun = kind === 'tools' ? 'tool' : 'prompt';
    for (const a of announced) {
      const fields = a.changes.map((c) => c.field).join(', ');
      const held = mode === 'accept' ? 'accepted' : mode === 'hide' ? 'hidden until an admin approves it' : 'held at its pinned definition until an admin approves it';
      this.logs.add({ type: 'hub', level: 'warn', server, message: `${noun === 'tool' ? 'Tool' : 'Prompt'} ${a.name} of ${server} changed (${fields}): ${held}` });
      this.announce(`${noun}.changed`, { server, [noun]: a.name, mode, seenAt: a.pin.pending?.seenAt ?? a.pin.pinnedAt, changes: a.changes });
    }
  }

  /** Whether a live item is new, or changed in a way not yet recorded (or back to its pin). */
  private needsWrite(s: Readonly<SettingsFile>, server: string, item: Item, kind: PinKind): boolean {
    const pin = pinOf(s, server, item.name, kind);
    if (!pin) return true;
    const hash = toolHash(item);
    if (hash === pin.hash) return pin.pending !== undefined;
    return pin.pending?.hash !== hash && pin.rejected !== hash;
  }

  /** Changes waiting for an admin, on the servers the caller may see. */
  list(principal: Principal): ToolChange[] {
    const s = this.store.get();
    const visible = visibleServers(principal, s);
    const mode = pinning(s).onChange;
    const out: ToolChange[] = [];
    for (const { kind, server, tool, pin } of pendingChanges(s)) {
      if (visible && !visible.has(server)) continue;
      out.push({ kind, server, tool, pinnedAt: pin.pinnedAt, seenAt: pin.pending.seenAt, mode, changes: diffDefinitions(pin.definition, pin.pending.definition) });
    }
    return out;
  }

  /** Approve: the new definition becomes the pin. Reject: the pin stays and the tool or prompt is switched off. */
  async decide(server: string, name: string, approve: boolean, kind: PinKind = 'tools'): Promise<{ server: string; tool: string; kind: PinKind; approved: boolean }> {
    const noun = kind === 'tools' ? 'tool' : 'prompt';
    await this.store.update((d) => {
      const pin = pinOf(d, server, name, kind);
      if (!d.mcpServers[server]) throw new TRPCError({ code: 'NOT_FOUND', message: `Server ${server} not found` });
      if (!pin?.pending) throw new TRPCError({ code: 'NOT_FOUND', message: `${noun}: no change of ${name} on ${server} waits for a decision` });
      const pins = d[pinMapKey(kind)]![server]!;
      if (approve) putKey(pins, name, { hash: pin.pending.hash, definition: pin.pending.definition, pinnedAt: new Date().toISOString() });
      else {
        putKey(pins, name, { hash: pin.hash, definition: pin.definition, pinnedAt: pin.pinnedAt, rejected: pin.pending.hash });
        const cfg = d.mcpServers[server]!;
        const toggles = (cfg[kind] ??= bareMap());
        putKey(toggles, name, { ...(Object.hasOwn(toggles, name) ? toggles[name] : {}), enabled: false });
      }
    });
    this.logs.add({ type: 'hub', level: 'info', server, message: `Change of ${noun} ${name} of ${server} was ${approve ? 'approved' : `rejected; the ${noun} is switched off`}` });
    return { server, tool: name, kind, approved: approve };
  }
}
