import { TRPCError } from '@trpc/server';
import { isReservedName, type SettingsFile, type ToolChange, type ToolPin } from '@hub/contract';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Store } from '../store/store';
import { bareMap, putKey } from '../store/safe-maps';
import type { ServerRegistry } from '../servers/registry';
import type { LogService } from '../monitoring/logs';
import type { Principal } from '../auth/principal';
import { visibleServers } from '../auth/access';
import { diffDefinitions, pendingChanges, pinnedPart, pinning, pinOf, toolHash } from '../servers/pins';


type Announce = (event: string, data: Record<string, unknown>) => void;

/**
 * Tool pinning: records each tool's definition on first sight, notices when
 * an upstream changes it (a "rug pull") and keeps that change waiting for an
 * admin. What agents get meanwhile is decided in the catalog (`agreedTool`).
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

  /** Pins new tools and records changed ones of a server's live list. */
  async reconcile(server: string): Promise<void> {
    // The live lists (of a caller's connection, when the server's own one cannot list without secrets).
    const state = this.registry.state(server);
    const tools = state && !state.cached ? state.tools : undefined;
    if (!tools?.length || !pinning(this.store.get()).enabled) return;
    if (!tools.some((t) => !isReservedName(t.name) && this.needsWrite(this.store.get(), server, t))) return;
    // Decided again on the state the write applies to: another replica may have recorded it first.
    const announced = await this.store.update((draft) => {
      const out: Array<{ tool: string; pin: ToolPin; changes: ReturnType<typeof diffDefinitions> }> = [];
      if (!draft.mcpServers[server]) return out;
      const mode = pinning(draft).onChange;
      draft.toolPins ??= bareMap();
      if (!Object.hasOwn(draft.toolPins, server)) putKey(draft.toolPins, server, bareMap<ToolPin>());
      const pins = draft.toolPins[server]!;
      const now = new Date().toISOString();
      for (const tool of tools) {
        if (isReservedName(tool.name) || !this.needsWrite(draft, server, tool)) continue;
        const pin = pinOf(draft, server, tool.name);
        const hash = toolHash(tool);
        const definition = pinnedPart(tool);
        if (!pin) putKey(pins, tool.name, { hash, definition, pinnedAt: now });
        else if (pin.hash === hash) putKey(pins, tool.name, { hash, definition: pin.definition, pinnedAt: pin.pinnedAt });
        else {
          const changes = diffDefinitions(pin.definition, definition);
          const next: ToolPin = mode === 'accept' ? { hash, definition, pinnedAt: now } : { ...pin, pending: { hash, definition, seenAt: now } };
          putKey(pins, tool.name, next);
          out.push({ tool: tool.name, pin: next, changes });
        }
      }
      return out;
    });
    const mode = pinning(this.store.get()).onChange;
    for (const a of announced) {
      const fields = a.changes.map((c) => c.field).join(', ');
      const held = mode === 'accept' ? 'accepted' : mode === 'hide' ? 'hidden until an admin approves it' : 'held at its pinned definition until an admin approves it';
      this.logs.add({ type: 'hub', level: 'warn', server, message: `Tool ${a.tool} of ${server} changed (${fields}): ${held}` });
      this.announce('tool.changed', { server, tool: a.tool, mode, seenAt: a.pin.pending?.seenAt ?? a.pin.pinnedAt, changes: a.changes });
    }
  }

  /** Whether a live tool is new, or changed in a way not yet recorded (or back to its pin). */
  private needsWrite(s: Readonly<SettingsFile>, server: string, tool: Tool): boolean {
    const pin = pinOf(s, server, tool.name);
    if (!pin) return true;
    const hash = toolHash(tool);
    if (hash === pin.hash) return pin.pending !== undefined;
    return pin.pending?.hash !== hash && pin.rejected !== hash;
  }

  /** Changes waiting for an admin, on the servers the caller may see. */
  list(principal: Principal): ToolChange[] {
    const s = this.store.get();
    const visible = visibleServers(principal, s);
    const mode = pinning(s).onChange;
    const out: ToolChange[] = [];
    for (const { server, tool, pin } of pendingChanges(s)) {
      if (visible && !visible.has(server)) continue;
      out.push({ server, tool, pinnedAt: pin.pinnedAt, seenAt: pin.pending.seenAt, mode, changes: diffDefinitions(pin.definition, pin.pending.definition) });
    }
    return out;
  }

  /** Approve: the new definition becomes the pin. Reject: the pin stays and the tool is switched off. */
  async decide(server: string, tool: string, approve: boolean): Promise<{ server: string; tool: string; approved: boolean }> {
    await this.store.update((d) => {
      const pin = pinOf(d, server, tool);
      if (!d.mcpServers[server]) throw new TRPCError({ code: 'NOT_FOUND', message: `Server ${server} not found` });
      if (!pin?.pending) throw new TRPCError({ code: 'NOT_FOUND', message: `tool: no change of ${tool} on ${server} waits for a decision` });
      const pins = d.toolPins![server]!;
      if (approve) putKey(pins, tool, { hash: pin.pending.hash, definition: pin.pending.definition, pinnedAt: new Date().toISOString() });
      else {
        putKey(pins, tool, { hash: pin.hash, definition: pin.definition, pinnedAt: pin.pinnedAt, rejected: pin.pending.hash });
        const cfg = d.mcpServers[server]!;
        cfg.tools ??= bareMap();
        putKey(cfg.tools, tool, { ...(Object.hasOwn(cfg.tools, tool) ? cfg.tools[tool] : {}), enabled: false });
      }
    });
    this.logs.add({ type: 'hub', level: 'info', server, message: `Change of tool ${tool} of ${server} was ${approve ? 'approved' : 'rejected; the tool is switched off'}` });
    return { server, tool, approved: approve };
  }
}
