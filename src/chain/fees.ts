/**
 * The fee market as the chain shows it: the gas price oracle (eth_gasPrice, eth_maxPriorityFeePerGas),
 * fee history (eth_feeHistory, eth_blobBaseFee) and what a block paid its miner. One per node, built in
 * node.ts; JSON-RPC, GraphQL and the engine port all ask it.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';
import { INITIAL_BASE_FEE } from '../config/genesis.js';
import type { ChainStore } from './chainStore.js';
import type { StoredReceipt } from './receipts.js';

export interface FeeOracleSettings {
  /** Blocks sampled, head included (--api-gas-price-blocks). */
  gasPriceBlocks: number;
  /** Percentile of the sampled prices (--api-gas-price-percentile). */
  gasPricePercentile: number;
  /** Ceiling of the gas price estimate (--api-gas-price-max). */
  gasPriceMax: bigint;
  /** Floor of the gas price estimate (--min-gas-price). */
  minGasPrice: bigint;
  /** Floor of the priority fee estimate (--min-priority-fee). */
  minPriorityFee: bigint;
}

/** One block of eth_feeHistory; `rewards` only when percentiles were asked for. */
export interface FeeHistoryBlock {
  baseFeePerGas: bigint;
  baseFeePerBlobGas: bigint;
  gasUsedRatio: number;
  blobGasUsedRatio: number;
  rewards?: bigint[];
}

export interface FeeHistory {
  oldestBlock: bigint;
  blocks: FeeHistoryBlock[];
  /** Base fee and blob base fee of the block after the newest (the real one when it exists). */
  next: { baseFeePerGas: bigint; baseFeePerBlobGas: bigint } | undefined;
}

export interface MinerReward {
  staticBlockReward: bigint;
  transactionFee: bigint;
  uncleInclusionReward: bigint;
  netBlockReward: bigint;
}

/** The price a transaction pays per gas in a block with this base fee (EIP-1559 rules). */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  if (tx.type < 2) return (tx as { gasPrice: bigint }).gasPrice;
  const t = tx as unknown as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  return feeMarketPrice(t.maxFeePerGas, t.maxPriorityFeePerGas, baseFee);
}

/** The price per gas a fee-market transaction pays: its cap, or the base fee plus its tip when that is lower. */
export function feeMarketPrice(maxFee: bigint, maxPriorityFee: bigint, baseFee: bigint | undefined): bigint {
  if (baseFee === undefined) return maxFee;
  if (maxFee - baseFee < maxPriorityFee) return maxFee;
  return baseFee + maxPriorityFee;
}

function percentileOf(values: bigint[], percentile: number): bigint | undefined {
  if (values.length === 0) return undefined;
  values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = Math.min(values.length - 1, Math.floor((values.length * percentile) / 100));
  return values[index];
}

function blobGasPrice(h: BlockHeader): bigint {
  return h.excessBlobGas !== undefined ? h.getBlobGasPrice() : 0n;
}

/** The rules of the block that would follow `h` if it were built now. */
function childCommon(h: BlockHeader): Common {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const common = h.common.copy();
  common.setHardforkBy({ blockNumber: h.number + 1n, timestamp: now > h.timestamp ? now : h.timestamp + 1n });
  return common;
}

/** Base fee of the block after `h` when that block does not exist yet. */
function nextBaseFee(h: BlockHeader): bigint {
  if (h.baseFeePerGas !== undefined) return h.calcNextBaseFee();
  // The block after the last pre-London block starts at the initial base fee.
  return childCommon(h).isActivatedEIP(1559) ? INITIAL_BASE_FEE : 0n;
}

/** Blob base fee of the block after `h` when that block does not exist yet. */
export function nextBlobGasPrice(h: BlockHeader): bigint {
  if (h.excessBlobGas === undefined) return 0n;
  return h.calcNextBlobGasPrice(childCommon(h));
}

function blobGasUsedRatio(h: BlockHeader): number {
  if (h.blobGasUsed === undefined) return 0;
  const max = h.common.param('maxBlobGasPerBlock');
  return max > 0n ? Number(h.blobGasUsed) / Number(max) : 0;
}

/** Priority fees paid at each percentile of the block's gas, transactions sorted by fee (as geth and Besu do). */
function rewards(
  block: Block,
  receipts: readonly StoredReceipt[] | undefined,
  percentiles: number[],
): bigint[] {
  const txs = block.transactions;
  if (txs.length === 0 || !receipts) return percentiles.map(() => 0n);
  const baseFee = block.header.baseFeePerGas ?? 0n;
  const sorted = txs.map((tx: TypedTransaction, i) => {
    const previous = i > 0 ? (receipts[i - 1] as StoredReceipt).cumulativeGasUsed : 0n;
    const gasUsed = ((receipts[i] as StoredReceipt | undefined)?.cumulativeGasUsed ?? previous) - previous;
    return { reward: effectiveGasPrice(tx, block.header.baseFeePerGas) - baseFee, gasUsed };
  });
  sorted.sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0));
  const blockGas = Number(block.header.gasUsed);
  const out: bigint[] = [];
  let index = 0;
  let sum = (sorted[0] as { gasUsed: bigint }).gasUsed;
  for (const p of percentiles) {
    const threshold = BigInt(Math.floor((blockGas * p) / 100));
    while (sum < threshold && index < sorted.length - 1) {
      index++;
      sum += (sorted[index] as { gasUsed: bigint }).gasUsed;
    }
    out.push((sorted[index] as { reward: bigint }).reward);
  }
  return out;
}

function staticReward(block: Block): bigint {
  // Proof-of-stake blocks (difficulty 0) pay no block reward.
  if (block.header.difficulty === 0n) return 0n;
  try {
    // The reward parameter belongs to the VM's parameter set, not to Common's own.
    const common = block.common.copy();
    common.updateParams(paramsVM);
    return common.param('minerReward');
  } catch {
    // A fork with no reward parameter pays none.
    return 0n;
  }
}

export class FeeOracle {
  constructor(
    private readonly chain: ChainStore,
    private readonly settings: FeeOracleSettings,
  ) {}

  private recentBlocks(): Block[] {
    const chain = this.chain;
    const head = chain.head().number;
    const out: Block[] = [];
    const count = BigInt(Math.max(0, this.settings.gasPriceBlocks));
    for (let n = head; n >= 0n && head - n < count; n--) {
      const block = chain.getBlockByNumber(n);
      if (block) out.push(block);
    }
    return out;
  }

  /**
   * eth_gasPrice: the configured percentile of the gas price of legacy and access-list transactions
   * in the recent blocks (EIP-1559 ones are left out, as in Besu), at least --min-gas-price raised to
   * the next block's base fee on a fee-market chain, at most --api-gas-price-max; with no sample, the floor.
   */
  gasPrice(): bigint {
    const s = this.settings;
    const prices: bigint[] = [];
    for (const block of this.recentBlocks()) {
      for (const tx of block.transactions as Array<{ type: number; gasPrice?: bigint }>) {
        if ((tx.type === 0 || tx.type === 1) && tx.gasPrice !== undefined) prices.push(tx.gasPrice);
      }
    }
    let floor = s.minGasPrice;
    const head = this.chain.headHeader();
    if (head.common.isActivatedEIP(1559)) {
      let next: bigint | undefined;
      try {
        next = head.calcNextBaseFee();
      } catch {
        // The head is the last block before London: its own base fee is the reference.
        next = head.baseFeePerGas;
      }
      if (next !== undefined && next > floor) floor = next;
    }
    const picked = percentileOf(prices, s.gasPricePercentile);
    if (picked === undefined || picked < floor) return floor;
    // biome-ignore lint/complexity/useMathMinMax: bigints
    return picked > s.gasPriceMax ? s.gasPriceMax : picked;
  }

  /** eth_maxPriorityFeePerGas: the configured percentile of recent effective priority fees, at least --min-priority-fee. */
  maxPriorityFee(): bigint {
    const fees: bigint[] = [];
    for (const block of this.recentBlocks()) {
      const baseFee = block.header.baseFeePerGas ?? 0n;
      for (const tx of block.transactions) {
        // A transaction priced under the base fee cannot be in a valid block; skip what cannot be priced.
        if (effectiveGasPrice(tx, block.header.baseFeePerGas) < baseFee) continue;
        fees.push(tx.getEffectivePriorityFee(baseFee));
      }
    }
    const picked = percentileOf(fees, this.settings.gasPricePercentile);
    const min = this.settings.minPriorityFee;
    return picked === undefined || picked < min ? min : picked;
  }

  /** Blob base fee of the next block, from the head's excess blob gas. */
  blobBaseFee(): bigint {
    return nextBlobGasPrice(this.chain.headHeader());
  }

  /** Fee history of canonical blocks `oldest`..`newest` (both within the chain). */
  history(oldest: bigint, newest: bigint, percentiles: number[] | undefined): FeeHistory {
    const chain = this.chain;
    const blocks: FeeHistoryBlock[] = [];
    let last: BlockHeader | undefined;
    for (let n = oldest; n <= newest; n++) {
      const header = chain.getHeaderByNumber(n);
      if (!header) break;
      last = header;
      const entry: FeeHistoryBlock = {
        baseFeePerGas: header.baseFeePerGas ?? 0n,
        baseFeePerBlobGas: blobGasPrice(header),
        gasUsedRatio: header.gasLimit > 0n ? Number(header.gasUsed) / Number(header.gasLimit) : 0,
        blobGasUsedRatio: blobGasUsedRatio(header),
      };
      if (percentiles) {
        const hash = header.hash();
        const block = chain.getBlock(hash);
        entry.rewards = block
          ? rewards(block, chain.getReceipts(hash), percentiles)
          : percentiles.map(() => 0n);
      }
      blocks.push(entry);
    }
    let next: FeeHistory['next'];
    if (last) {
      const after = chain.getHeaderByNumber(last.number + 1n);
      next = {
        baseFeePerGas: after ? (after.baseFeePerGas ?? 0n) : nextBaseFee(last),
        baseFeePerBlobGas: after ? blobGasPrice(after) : nextBlobGasPrice(last),
      };
    }
    return { oldestBlock: oldest, blocks, next };
  }

  /**
   * What a block paid its miner: the fork's block reward (none after the merge), each transaction's gas
   * used times its effective priority fee, and 1/32 of the reward per uncle included.
   */
  minerReward(block: Block): MinerReward {
    const header = block.header;
    const reward = staticReward(block);
    const receipts = this.chain.getReceipts(header.hash()) ?? [];
    const baseFee = header.baseFeePerGas ?? 0n;
    let fees = 0n;
    let previous = 0n;
    block.transactions.forEach((tx, i) => {
      const cumulative = receipts[i]?.cumulativeGasUsed ?? previous;
      const gasUsed = cumulative - previous;
      previous = cumulative;
      fees += gasUsed * tx.getEffectivePriorityFee(baseFee);
    });
    const uncleInclusion = (reward * BigInt(block.uncleHeaders.length)) / 32n;
    return {
      staticBlockReward: reward,
      transactionFee: fees,
      uncleInclusionReward: uncleInclusion,
      netBlockReward: reward + fees + uncleInclusion,
    };
  }
}
