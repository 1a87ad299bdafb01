/**
 * Fee market history: eth_feeHistory and eth_blobBaseFee, answered by the chain's fee oracle.
 * Base fees and blob base fees list one entry per block plus one for the block after the newest
 * (the real next block when it exists, else computed from the newest); pre-London base fees and
 * pre-Cancun blob fees are zero.
 */
import { resolveBlockNumber } from '../../blockParam.js';
import {
  INVALID_BLOCK_COUNT_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_PARAMS,
  INVALID_REWARD_PERCENTILES_PARAMS,
  RpcError,
} from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { blockNumberParam, type Decoder, decoder, uint64 } from '../../params.js';
import { defineMethod, optional, required } from '../define.js';
import type { RpcMethod } from '../types.js';

const MAX_BLOCK_COUNT = 1024n;

/** A block count of 1 to 1024. */
const blockCount: Decoder<bigint> = decoder(INVALID_BLOCK_COUNT_PARAMS, (value) => {
  const count = uint64(value, INVALID_BLOCK_COUNT_PARAMS);
  return count < 1n || count > MAX_BLOCK_COUNT ? undefined : count;
});

/** Besu's limit: a longer percentile list is accepted, and answered without rewards. */
const MAX_PERCENTILES = 100;
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/**
 * Reward percentiles as Besu reads them: a list of numbers (numeric strings count), in any order and
 * of any value; rewards are worked out and listed for them in ascending order.
 */
const rewardPercentiles: Decoder<number[]> = decoder(INVALID_REWARD_PERCENTILES_PARAMS, (value) => {
  if (!Array.isArray(value)) return undefined;
  const out: number[] = [];
  for (const p of value) {
    if (typeof p === 'number') out.push(p);
    else if (typeof p === 'string' && DECIMAL.test(p)) out.push(Number(p));
    else return undefined;
  }
  return out.sort((a, b) => a - b);
});

export const ethFeeHistory = defineMethod({
  name: 'eth_feeHistory',
  group: 'ETH',
  params: [
    required(blockCount),
    required(blockNumberParam, INVALID_BLOCK_PARAMS),
    optional(rewardPercentiles),
  ],
  handler([count, newestParam, asked], { services }) {
    const percentiles = asked && asked.length <= MAX_PERCENTILES ? asked : undefined;
    const chain = services.chain;
    const head = chain.head().number;
    const newest = resolveBlockNumber(chain, newestParam);
    if (newest < 0n || newest > head) throw new RpcError(INVALID_PARAMS);
    const oldest = newest - count + 1n > 0n ? newest - count + 1n : 0n;
    const history = services.fees.history(oldest, newest, percentiles);
    const baseFeePerGas = history.blocks.map((b) => quantity(b.baseFeePerGas));
    const baseFeePerBlobGas = history.blocks.map((b) => quantity(b.baseFeePerBlobGas));
    if (history.next) {
      baseFeePerGas.push(quantity(history.next.baseFeePerGas));
      baseFeePerBlobGas.push(quantity(history.next.baseFeePerBlobGas));
    }
    const out: Record<string, unknown> = {
      oldestBlock: quantity(history.oldestBlock),
      baseFeePerGas,
      baseFeePerBlobGas,
      gasUsedRatio: history.blocks.map((b) => b.gasUsedRatio),
      blobGasUsedRatio: history.blocks.map((b) => b.blobGasUsedRatio),
    };
    if (percentiles) out.reward = history.blocks.map((b) => (b.rewards ?? []).map(quantity));
    return out;
  },
});

/** Blob base fee of the next block, from the head's excess blob gas. */
export const ethBlobBaseFee = defineMethod({
  name: 'eth_blobBaseFee',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => quantity(services.fees.blobBaseFee()),
});

export const feeMethods: RpcMethod[] = [ethFeeHistory, ethBlobBaseFee];
