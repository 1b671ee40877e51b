import type { EventBus, HubEvents, Topic } from './bus';

/**
 * Turns a topic into an async iterable for a live feed. The queue is bounded:
 * a subscriber that falls behind loses the oldest events (and learns how many),
 * so it can never slow the publisher or grow memory without bound.
 */
export async function* iterateTopic<K extends Topic>(
  bus: EventBus,
  topic: K,
  opts: { signal?: AbortSignal; maxQueue?: number } = {},
): AsyncGenerator<{ payload: HubEvents[K]; dropped: number }> {
  const maxQueue = opts.maxQueue ?? 1000;
  const queue: HubEvents[K][] = [];
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
  opts.signal?.addEventListener('abort', onAbort);
  try {
    while (!opts.signal?.aborted) {
      if (queue.length === 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      const payload = queue.shift()!;
      const lost = dropped;
      dropped = 0;
      yield { payload, dropped: lost };
    }
  } finally {
    unsubscribe();
    opts.signal?.removeEventListener('abort', onAbort);
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
  const maxQueue = opts.maxQueue ?? 5000;
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
  opts.signal?.addEventListener('abort', onAbort);
  try {
    while (!opts.signal?.aborted) {
      if (queue.length === 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      await new Promise((r) => setTimeout(r, opts.windowMs ?? 20));
      const payloads = queue;
      queue = [];
      const lost = dropped;
      dropped = 0;
      yield { payloads, dropped: lost };
    }
  } finally {
    unsubscribe();
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
