/**
 * eth_getMinerDataByBlockHash / eth_getMinerDataByBlockNumber: what the block paid its miner. The
 * static reward is the fork's block reward (none after the merge), the transaction fee is the sum of
 * each transaction's gas used times its effective priority fee, and each uncle included adds 1/32 of
 * the static reward. The reward is the one block import credited (the fork's `minerReward`).
 */
import type { Block } from '@ethereumjs/block';
import { paramsVM } from '@ethereumjs/vm';
import { INVALID_BLOCK_HASH_PARAMS, INVALID_BLOCK_PARAMS } from '../../errors.js';
import { bytes, address as formatAddress, quantity } from '../../format/hex.js';
import { blockNumberParam, hashBytes } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';
import { blockByNumberParam } from './blocks.js';

function staticReward(block: Block): bigint {
  // Proof-of-stake blocks (difficulty 0) pay no block reward.
  if (block.header.difficulty === 0n) return 0n;
  try {
    // The reward parameter belongs to the VM's parameter set, not to Common's own.
    const common = block.common.copy();
    common.updateParams(paramsVM);
    return common.param('minerReward');
  } catch {
    return 0n;
  }
}

export function minerData(services: Services, block: Block): Record<string, unknown> {
  const header = block.header;
  const reward = staticReward(block);
  const receipts = services.chain.getReceipts(header.hash()) ?? [];
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
  const td = services.chain.getTotalDifficulty(header.hash());
  return {
    netBlockReward: quantity(reward + fees + uncleInclusion),
    staticBlockReward: quantity(reward),
    transactionFee: quantity(fees),
    uncleInclusionReward: quantity(uncleInclusion),
    uncleRewards: block.uncleHeaders.map((u) => ({
      hash: bytes(u.hash()),
      coinbase: formatAddress(u.coinbase.bytes),
    })),
    coinbase: formatAddress(header.coinbase.bytes),
    extraData: bytes(header.extraData),
    difficulty: quantity(header.difficulty),
    totalDifficulty: quantity(td ?? 0n),
  };
}

export const ethGetMinerDataByBlockHash = defineMethod({
  name: 'eth_getMinerDataByBlockHash',
  group: 'ETH',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS)],
  handler([hash], { services }) {
    const block = services.chain.getBlock(hash);
    return block ? minerData(services, block) : null;
  },
});

export const ethGetMinerDataByBlockNumber = defineMethod({
  name: 'eth_getMinerDataByBlockNumber',
  group: 'ETH',
  params: [required(blockNumberParam, INVALID_BLOCK_PARAMS)],
  handler([p], { services }) {
    const block = blockByNumberParam(services, p);
    return block ? minerData(services, block) : null;
  },
});

export const minerDataMethods: RpcMethod[] = [ethGetMinerDataByBlockHash, ethGetMinerDataByBlockNumber];
