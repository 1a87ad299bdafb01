/**
 * The order transactions leave the pool for a block: the best effective tip at the block's base fee
 * first, each sender's transactions strictly in nonce order (a sender's next transaction competes only
 * once the previous one is in). Ties go to the transaction that arrived first.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { PooledTx } from '../txpool/pool.js';

export function maxFeePerGas(tx: TypedTransaction): bigint {
  return tx.type >= 2
    ? (tx as unknown as { maxFeePerGas: bigint }).maxFeePerGas
    : (tx as unknown as { gasPrice: bigint }).gasPrice;
}

/** Tip per gas the block's beneficiary earns at `baseFee`; negative when the tx cannot pay the base fee. */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  const headroom = maxFeePerGas(tx) - baseFee;
  if (tx.type < 2) return headroom;
  const prio = (tx as unknown as { maxPriorityFeePerGas: bigint }).maxPriorityFeePerGas;
  return prio < headroom ? prio : headroom;
}

interface Lane {
  txs: PooledTx[];
  next: number;
  tip: bigint;
}

/** Max-heap of sender lanes keyed by the tip of each lane's next transaction. */
export class TxSelection {
  private readonly heap: Lane[] = [];

  constructor(
    pending: Iterable<PooledTx[]>,
    private readonly baseFee: bigint,
  ) {
    for (const txs of pending) {
      if (txs.length === 0) continue;
      this.push({ txs, next: 0, tip: effectiveTip((txs[0] as PooledTx).tx, baseFee) });
    }
  }

  /** The best transaction left, without taking it. */
  peek(): PooledTx | undefined {
    const lane = this.heap[0];
    return lane ? lane.txs[lane.next] : undefined;
  }

  /** Took the best transaction: its sender's next nonce competes now. */
  accept(): void {
    const lane = this.heap[0];
    if (!lane) return;
    lane.next++;
    if (lane.next >= lane.txs.length) {
      this.popTop();
      return;
    }
    lane.tip = effectiveTip((lane.txs[lane.next] as PooledTx).tx, this.baseFee);
    this.siftDown(0);
  }

  /** The best transaction cannot go in: neither can its sender's later nonces. */
  skipSender(): void {
    this.popTop();
  }

  private better(a: Lane, b: Lane): boolean {
    if (a.tip !== b.tip) return a.tip > b.tip;
    return (a.txs[a.next] as PooledTx).seq < (b.txs[b.next] as PooledTx).seq;
  }

  private push(lane: Lane): void {
    const h = this.heap;
    h.push(lane);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(h[i] as Lane, h[p] as Lane)) break;
      [h[i], h[p]] = [h[p] as Lane, h[i] as Lane];
      i = p;
    }
  }

  private popTop(): void {
    const h = this.heap;
    const last = h.pop();
    if (h.length === 0 || !last) return;
    h[0] = last;
    this.siftDown(0);
  }

  private siftDown(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < h.length && this.better(h[l] as Lane, h[best] as Lane)) best = l;
      if (r < h.length && this.better(h[r] as Lane, h[best] as Lane)) best = r;
      if (best === i) return;
      [h[i], h[best]] = [h[best] as Lane, h[i] as Lane];
      i = best;
    }
  }
}
