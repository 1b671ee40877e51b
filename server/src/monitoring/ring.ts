/**
 * A fixed-capacity window of the latest items. Pushing past capacity
 * overwrites the oldest in O(1); an array's shift() moved every element,
 * once per tool call.
 */
export class Ring<T> implements Iterable<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.items = new Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count < this.capacity) {
      this.items[(this.start + this.count++) % this.capacity] = item;
      return;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
  }

  clear(): void {
    this.items.fill(undefined);
    this.start = 0;
    this.count = 0;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.count; i++) yield this.items[(this.start + i) % this.capacity]!;
  }

  filter(keep: (item: T) => boolean): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i++) {
      const item = this.items[(this.start + i) % this.capacity]!;
      if (keep(item)) out.push(item);
    }
    return out;
  }
}
