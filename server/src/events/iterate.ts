import type { EventBus, HubEvents, Topic } from './bus';

/**
 * A bounded queue on a topic: a subscriber that falls behind loses the
 * oldest events (and learns how many), so it can never slow the publisher
 * or grow memory without bound.
 */
function queueOn<K extends Topic>(bus: EventBus, topic: K, maxQueue: number, signal?: AbortSignal) {
  let queue: HubEvents[K][] = [];
  let dropped = 0;
  let wake: (() => void) | null = null;
  const unsubscribe = bus.subscribe(topic, (payload) => {
    if (queue.length >= maxQueue) {
      queue.shift();
      dropped++;
    }
    queue.push(payload);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort);
  return {
    /** Waits until something is queued (or the signal aborts). */
    async ready(): Promise<boolean> {
      while (queue.length === 0 && !signal?.aborted) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
      return !signal?.aborted;
    },
    take(all: boolean): { payloads: HubEvents[K][]; dropped: number } {
      const payloads = all ? queue : queue.splice(0, 1);
      if (all) queue = [];
      const lost = dropped;
      dropped = 0;
      return { payloads, dropped: lost };
    },
    close() {
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** A topic as an async iterable of single events, for live feeds. */
export async function* iterateTopic<K extends Topic>(
  bus: EventBus,
  topic: K,
  opts: { signal?: AbortSignal; maxQueue?: number } = {},
): AsyncGenerator<{ payload: HubEvents[K]; dropped: number }> {
  const q = queueOn(bus, topic, opts.maxQueue ?? 1000, opts.signal);
  try {
    while (await q.ready()) {
      const { payloads, dropped } = q.take(false);
      yield { payload: payloads[0]!, dropped };
    }
  } finally {
    q.close();
  }
}

/**
 * Like iterateTopic, but yields what arrived within `windowMs` as one batch:
 * at a thousand events a second this turns a thousand messages per
 * subscriber into a few dozen, for a few milliseconds of added delay.
 */
export async function* iterateBatches<K extends Topic>(
  bus: EventBus,
  topic: K,
  opts: { signal?: AbortSignal; maxQueue?: number; windowMs?: number } = {},
): AsyncGenerator<{ payloads: HubEvents[K][]; dropped: number }> {
  const q = queueOn(bus, topic, opts.maxQueue ?? 5000, opts.signal);
  try {
    while (await q.ready()) {
      await new Promise((r) => setTimeout(r, opts.windowMs ?? 20));
      yield q.take(true);
    }
  } finally {
    q.close();
  }
}
