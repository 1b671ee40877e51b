/** Events that cross services and reach live subscribers. */
export type HubEvents = {
  'settings.changed': { revision: number; at: string };
  /** An upstream's status changed. */
  'server.status': { name: string; status: string; error: string | null; at: string; change?: 'status' | 'lists'; tools?: number };
  /** What agents can see changed (tools, prompts, resources, enable flags, groups). */
  'catalog.changed': { version: number };
  /** A new log entry (Hub, an upstream, or a tool call). */
  'log.entry': import('../monitoring/logs').LogEntry;
  /** A tool call finished. */
  'tool.call': { server: string; tool: string; duration: number; ok: boolean; user?: string; at: string; error?: string };
  /** An upstream resource that agents may have subscribed to changed. */
  'resource.updated': { server: string; uri: string };
};

export type Topic = keyof HubEvents;

/**
 * Publish/subscribe between services and live feeds. In memory by default; a
 * shared implementation (database notifications, Redis) serves several replicas.
 */
export interface EventBus {
  publish<K extends Topic>(topic: K, payload: HubEvents[K]): void;
  subscribe<K extends Topic>(topic: K, handler: (payload: HubEvents[K]) => void): () => void;
  /** How many handlers listen to `topic` (work for nobody can be skipped). */
  listeners(topic: Topic): number;
}

export class MemoryBus implements EventBus {
  private handlers = new Map<Topic, Set<(payload: never) => void>>();

  publish<K extends Topic>(topic: K, payload: HubEvents[K]): void {
    const set = this.handlers.get(topic);
    if (!set) return;
    for (const h of set) {
      try {
        (h as (p: HubEvents[K]) => void)(payload);
      } catch {
        // A failing subscriber must not break the publisher or the others.
      }
    }
  }

  listeners(topic: Topic): number {
    return this.handlers.get(topic)?.size ?? 0;
  }

  subscribe<K extends Topic>(topic: K, handler: (payload: HubEvents[K]) => void): () => void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler as (payload: never) => void);
    return () => set.delete(handler as (payload: never) => void);
  }
}
