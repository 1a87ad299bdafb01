/**
 * eth_getMinerDataByBlockHash / eth_getMinerDataByBlockNumber: what the block paid its miner, as the
 * fee oracle (`chain/fees.ts`) computes it: the fork's block reward, the priority fees and the uncle
 * inclusion reward.
 */
import type { Block } from '@ethereumjs/block';
import { INVALID_BLOCK_HASH_PARAMS, INVALID_BLOCK_PARAMS } from '../../errors.js';
import { bytes, address as formatAddress, quantity } from '../../format/hex.js';
import { blockNumberParam, hashBytes } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';
import { blockByNumberParam } from './blocks.js';

/** The answer of eth_getMinerDataBy*: the fee oracle's reward breakdown and the block's miner facts. */
export function minerData(services: Services, block: Block): Record<string, unknown> {
  const header = block.header;
  const reward = services.fees.minerReward(block);
  const td = services.chain.getTotalDifficulty(header.hash());
  return {
    netBlockReward: quantity(reward.netBlockReward),
    staticBlockReward: quantity(reward.staticBlockReward),
    transactionFee: quantity(reward.transactionFee),
    uncleInclusionReward: quantity(reward.uncleInclusionReward),
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
