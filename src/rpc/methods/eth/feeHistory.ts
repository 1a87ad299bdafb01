/**
 * Fee market history: eth_feeHistory and eth_blobBaseFee.
 * Base fees and blob base fees list one entry per block plus one for the block after the newest
 * (the real next block when it exists, else computed from the newest); pre-London base fees and
 * pre-Cancun blob fees are zero.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { ChainStore } from '../../../chain/chainStore.js';
import type { StoredReceipt } from '../../../chain/receipts.js';
import { INITIAL_BASE_FEE } from '../../../config/genesis.js';
import { resolveBlockNumber } from '../../blockParam.js';
import {
  INVALID_BLOCK_COUNT_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_PARAMS,
  INVALID_REWARD_PERCENTILES_PARAMS,
  RpcError,
} from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { effectiveGasPrice } from '../../format/transaction.js';
import { blockNumberParam, param, uint64 } from '../../params.js';
import type { RpcMethod } from '../types.js';

const MAX_BLOCK_COUNT = 1024n;

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

function nextBlobGasPrice(h: BlockHeader): bigint {
  if (h.excessBlobGas === undefined) return 0n;
  return h.calcNextBlobGasPrice(childCommon(h));
}

function blobGasUsedRatio(h: BlockHeader): number {
  if (h.blobGasUsed === undefined) return 0;
  const max = h.common.param('maxBlobGasPerBlock');
  return max > 0n ? Number(h.blobGasUsed) / Number(max) : 0;
}

/** Besu's limit: a longer percentile list is accepted, and answered without rewards. */
const MAX_PERCENTILES = 100;
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * The reward percentiles as Besu reads them: a list of numbers (numeric strings count), in any
 * order and of any value. Rewards are worked out and listed for the percentiles in ascending order.
 */
function parsePercentiles(value: unknown): number[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new RpcError(INVALID_REWARD_PERCENTILES_PARAMS);
  const out = value.map((p) => {
    if (typeof p === 'number') return p;
    if (typeof p === 'string' && DECIMAL.test(p)) return Number(p);
    throw new RpcError(INVALID_REWARD_PERCENTILES_PARAMS);
  });
  return out.sort((a, b) => a - b);
}

/** Priority fees paid at each percentile of the block's gas, transactions sorted by fee (as geth and Besu do). */
function rewards(
  block: Block,
  receipts: readonly StoredReceipt[] | undefined,
  percentiles: number[],
): string[] {
  const txs = block.transactions;
  if (txs.length === 0 || !receipts) return percentiles.map(() => '0x0');
  const baseFee = block.header.baseFeePerGas ?? 0n;
  const sorted = txs.map((tx: TypedTransaction, i) => {
    const previous = i > 0 ? (receipts[i - 1] as StoredReceipt).cumulativeGasUsed : 0n;
    const gasUsed = ((receipts[i] as StoredReceipt | undefined)?.cumulativeGasUsed ?? previous) - previous;
    return { reward: effectiveGasPrice(tx, block.header.baseFeePerGas) - baseFee, gasUsed };
  });
  sorted.sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0));
  const blockGas = Number(block.header.gasUsed);
  const out: string[] = [];
  let index = 0;
  let sum = Number((sorted[0] as { gasUsed: bigint }).gasUsed);
  for (const p of percentiles) {
    const threshold = (p * blockGas) / 100;
    while (sum < threshold && index < sorted.length - 1) {
      index++;
      sum += Number((sorted[index] as { gasUsed: bigint }).gasUsed);
    }
    out.push(quantity((sorted[index] as { reward: bigint }).reward));
  }
  return out;
}

export const ethFeeHistory: RpcMethod = {
  name: 'eth_feeHistory',
  group: 'ETH',
  handler(params, { services }) {
    const chain: ChainStore = services.chain;
    const count = param(params, 0, uint64, INVALID_BLOCK_COUNT_PARAMS);
    if (count < 1n || count > MAX_BLOCK_COUNT) throw new RpcError(INVALID_BLOCK_COUNT_PARAMS);
    const newestParam = param(params, 1, blockNumberParam, INVALID_BLOCK_PARAMS);
    const parsed = parsePercentiles(params[2]);
    const percentiles = parsed && parsed.length <= MAX_PERCENTILES ? parsed : undefined;
    const head = chain.head().number;
    const newest = resolveBlockNumber(chain, newestParam);
    if (newest < 0n || newest > head) throw new RpcError(INVALID_PARAMS);
    const oldest = newest - count + 1n > 0n ? newest - count + 1n : 0n;

    const baseFeePerGas: string[] = [];
    const baseFeePerBlobGas: string[] = [];
    const gasUsedRatio: number[] = [];
    const blobGasUsedRatios: number[] = [];
    const reward: string[][] = [];
    let last: BlockHeader | undefined;
    for (let n = oldest; n <= newest; n++) {
      const header = chain.getHeaderByNumber(n);
      if (!header) break;
      last = header;
      baseFeePerGas.push(quantity(header.baseFeePerGas ?? 0n));
      baseFeePerBlobGas.push(quantity(blobGasPrice(header)));
      gasUsedRatio.push(header.gasLimit > 0n ? Number(header.gasUsed) / Number(header.gasLimit) : 0);
      blobGasUsedRatios.push(blobGasUsedRatio(header));
      if (percentiles) {
        const hash = header.hash();
        const block = chain.getBlock(hash);
        reward.push(
          block ? rewards(block, chain.getReceipts(hash), percentiles) : percentiles.map(() => '0x0'),
        );
      }
    }
    if (last) {
      const next = chain.getHeaderByNumber(last.number + 1n);
      baseFeePerGas.push(quantity(next ? (next.baseFeePerGas ?? 0n) : nextBaseFee(last)));
      baseFeePerBlobGas.push(quantity(next ? blobGasPrice(next) : nextBlobGasPrice(last)));
    }
    const out: Record<string, unknown> = {
      oldestBlock: quantity(oldest),
      baseFeePerGas,
      baseFeePerBlobGas,
      gasUsedRatio,
      blobGasUsedRatio: blobGasUsedRatios,
    };
    if (percentiles) out.reward = reward;
    return out;
  },
};

/** Blob base fee of the next block, from the head's excess blob gas. */
export const ethBlobBaseFee: RpcMethod = {
  name: 'eth_blobBaseFee',
  group: 'ETH',
  handler(_params, { services }) {
    return quantity(nextBlobGasPrice(services.chain.headHeader()));
  },
};

export const feeMethods: RpcMethod[] = [ethFeeHistory, ethBlobBaseFee];
