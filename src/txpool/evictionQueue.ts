/**
 * The pool's eviction order for --tx-pool-max-size: each sender's highest-nonce transaction (the only
 * one that can leave without stranding a later nonce), cheapest fee cap first, the newest first among
 * equals. A binary min-heap with lazy removal: the pool offers a sender's new last transaction whenever
 * it changes, and entries that are no longer their sender's last are skipped when they surface, so an
 * add or an eviction costs O(log n) instead of a scan of the whole pool.
 */
/** What the queue orders: any pool entry with an insertion sequence (the newest leaves first among equals). */
interface Entry {
  seq: number;
}

interface Candidate<E extends Entry> {
  entry: E;
  fee: bigint;
}

/** a leaves before b. */
function before<E extends Entry>(a: Candidate<E>, b: Candidate<E>): boolean {
  return a.fee !== b.fee ? a.fee < b.fee : a.entry.seq > b.entry.seq;
}

export class EvictionQueue<E extends Entry> {
  private heap: Candidate<E>[] = [];

  get length(): number {
    return this.heap.length;
  }

  /** `entry` became its sender's highest-nonce transaction; `fee` is its fee cap. */
  offer(entry: E, fee: bigint): void {
    const h = this.heap;
    h.push({ entry, fee });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i] as Candidate<E>, h[p] as Candidate<E>)) break;
      [h[i], h[p]] = [h[p] as Candidate<E>, h[i] as Candidate<E>];
      i = p;
    }
  }

  /**
   * The next transaction to evict: the cheapest entry for which `isLast` holds (stale entries on the
   * way are dropped). Undefined when none is left.
   */
  next(isLast: (entry: E) => boolean): E | undefined {
    const h = this.heap;
    while (h.length > 0) {
      const top = h[0] as Candidate<E>;
      if (isLast(top.entry)) return top.entry;
      this.pop();
    }
    return undefined;
  }

  /**
   * Drops stale entries once they far outnumber the live ones (`live` senders): the heap's size stays
   * proportional to the pool's, at a cost spread over many adds.
   */
  compact(live: number, isLast: (entry: E) => boolean): void {
    if (this.heap.length <= 4 * live + 1024) return;
    this.heap = this.heap.filter((c) => isLast(c.entry));
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (h.length === 0 || !last) return;
    h[0] = last;
    this.siftDown(0);
  }

  private siftDown(from: number): void {
    const h = this.heap;
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < h.length && before(h[l] as Candidate<E>, h[best] as Candidate<E>)) best = l;
      if (r < h.length && before(h[r] as Candidate<E>, h[best] as Candidate<E>)) best = r;
      if (best === i) return;
      [h[i], h[best]] = [h[best] as Candidate<E>, h[i] as Candidate<E>];
      i = best;
    }
  }
}
