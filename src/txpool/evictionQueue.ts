/**
 * The pool's eviction order for --tx-pool-max-size: each sender's highest-nonce transaction (the only
 * one that can leave without stranding a later nonce), cheapest fee cap first, the newest first among
 * equals. A binary min-heap with lazy removal: the pool offers a sender's new last transaction whenever
 * it changes, and entries that are no longer their sender's last are skipped when they surface, so an
 * add or an eviction costs O(log n) instead of a scan of the whole pool.
 */
import { BinaryHeap } from '../util/binaryHeap.js';

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
  private readonly heap = new BinaryHeap<Candidate<E>>(before);

  get length(): number {
    return this.heap.length;
  }

  /** `entry` became its sender's highest-nonce transaction; `fee` is its fee cap. */
  offer(entry: E, fee: bigint): void {
    this.heap.push({ entry, fee });
  }

  /**
   * The next transaction to evict: the cheapest entry for which `isLast` holds (stale entries on the
   * way are dropped). Undefined when none is left.
   */
  next(isLast: (entry: E) => boolean): E | undefined {
    for (let top = this.heap.peek(); top !== undefined; top = this.heap.peek()) {
      if (isLast(top.entry)) return top.entry;
      this.heap.pop();
    }
    return undefined;
  }

  /**
   * Drops stale entries once they far outnumber the live ones (`live` senders): the heap's size stays
   * proportional to the pool's, at a cost spread over many adds.
   */
  compact(live: number, isLast: (entry: E) => boolean): void {
    if (this.heap.length <= 4 * live + 1024) return;
    this.heap.retain((c) => isLast(c.entry));
  }
}
