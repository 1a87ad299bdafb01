/**
 * The order transactions leave the pool for a block: the best effective tip at the block's base fee
 * first, each sender's transactions strictly in nonce order (a sender's next transaction competes only
 * once the previous one is in). Ties go to the transaction that arrived first.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { PooledTx } from '../txpool/pool.js';
import { BinaryHeap } from '../util/binaryHeap.js';

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

/** a's next transaction goes before b's: the better tip, then the earlier arrival. */
function better(a: Lane, b: Lane): boolean {
  if (a.tip !== b.tip) return a.tip > b.tip;
  return (a.txs[a.next] as PooledTx).seq < (b.txs[b.next] as PooledTx).seq;
}

/** Sender lanes in a heap keyed by the tip of each lane's next transaction. */
export class TxSelection {
  private readonly heap = new BinaryHeap<Lane>(better);

  constructor(
    pending: Iterable<PooledTx[]>,
    private readonly baseFee: bigint,
  ) {
    for (const txs of pending) {
      if (txs.length === 0) continue;
      this.heap.push({ txs, next: 0, tip: effectiveTip((txs[0] as PooledTx).tx, baseFee) });
    }
  }

  /** The best transaction left, without taking it. */
  peek(): PooledTx | undefined {
    const lane = this.heap.peek();
    return lane ? lane.txs[lane.next] : undefined;
  }

  /** Took the best transaction: its sender's next nonce competes now. */
  accept(): void {
    const lane = this.heap.peek();
    if (!lane) return;
    lane.next++;
    if (lane.next >= lane.txs.length) {
      this.heap.pop();
      return;
    }
    lane.tip = effectiveTip((lane.txs[lane.next] as PooledTx).tx, this.baseFee);
    this.heap.topChanged();
  }

  /** The best transaction cannot go in: neither can its sender's later nonces. */
  skipSender(): void {
    this.heap.pop();
  }
}
