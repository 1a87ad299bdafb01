/**
 * A binary heap over an array, ordered by `before(a, b)` (true when `a` comes out first). The pool's
 * eviction order and the block builder's transaction selection both keep one.
 */
export class BinaryHeap<T> {
  private items: T[] = [];

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
      if (!this.before(h[i] as T, h[p] as T)) break;
      [h[i], h[p]] = [h[p] as T, h[i] as T];
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
    this.items = this.items.filter(keep);
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
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
      [h[i], h[best]] = [h[best] as T, h[i] as T];
      i = best;
    }
  }
}
