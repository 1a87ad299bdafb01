/**
 * A binary heap over an array, ordered by `before(a, b)` (true when `a` comes out first). The pool's
 * eviction order and the block builder's transaction selection both keep one.
 */
export class BinaryHeap<T> {
  /** Never replaced, only changed in place: code optimised for the heap keeps its assumptions. */
  private readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get length(): number {
    return this.items.length;
  }

  /** What comes out first, without taking it. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const h = this.items;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const item = h[i] as T;
      const parent = h[p] as T;
      if (!this.before(item, parent)) break;
      h[i] = parent;
      h[p] = item;
      i = p;
    }
  }

  /** Takes out what comes first. */
  pop(): void {
    const h = this.items;
    const last = h.pop();
    if (h.length === 0 || last === undefined) return;
    h[0] = last;
    this.siftDown(0);
  }

  /** The first item's key changed: it sinks to its place (from the top, the only way it can move). */
  topChanged(): void {
    this.siftDown(0);
  }

  /** Keeps only the items `keep` accepts, in heap order again. */
  retain(keep: (item: T) => boolean): void {
    const h = this.items;
    let kept = 0;
    for (let i = 0; i < h.length; i++) {
      const item = h[i] as T;
      if (keep(item)) h[kept++] = item;
    }
    h.length = kept;
    for (let i = (kept >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private siftDown(from: number): void {
    const h = this.items;
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < h.length && this.before(h[l] as T, h[best] as T)) best = l;
      if (r < h.length && this.before(h[r] as T, h[best] as T)) best = r;
      if (best === i) return;
      const item = h[i] as T;
      h[i] = h[best] as T;
      h[best] = item;
      i = best;
    }
  }
}
