/**
 * Uncles (ommers): eth_getUncleByBlockHashAndIndex|NumberAndIndex, eth_getUncleCountByBlockHash|Number.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { INVALID_BLOCK_HASH_PARAMS, INVALID_BLOCK_INDEX_PARAMS, INVALID_BLOCK_PARAMS } from '../../errors.js';
import { formatUncle } from '../../format/block.js';
import { quantity } from '../../format/hex.js';
import { blockNumberParam, hashBytes, uint64 } from '../../params.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';
import { blockByNumberParam } from './blocks.js';

function uncleAt(uncles: readonly BlockHeader[], index: bigint): BlockHeader | undefined {
  return index < BigInt(uncles.length) ? uncles[Number(index)] : undefined;
}

export const ethGetUncleByBlockHashAndIndex = defineMethod({
  name: 'eth_getUncleByBlockHashAndIndex',
  group: 'ETH',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS), required(uint64, INVALID_BLOCK_INDEX_PARAMS)],
  handler([hash, index], { services }) {
    const block = services.chain.getBlock(hash);
    const uncle = block ? uncleAt(block.uncleHeaders, index) : undefined;
    return uncle ? formatUncle(uncle, services.chain, services.blockFormat) : null;
  },
});

export const ethGetUncleByBlockNumberAndIndex = defineMethod({
  name: 'eth_getUncleByBlockNumberAndIndex',
  group: 'ETH',
  params: [required(blockNumberParam, INVALID_BLOCK_PARAMS), required(uint64, INVALID_BLOCK_INDEX_PARAMS)],
  handler([p, index], { services }) {
    const block = blockByNumberParam(services, p);
    const uncle = block ? uncleAt(block.uncleHeaders, index) : undefined;
    return uncle ? formatUncle(uncle, services.chain, services.blockFormat) : null;
  },
});

export const ethGetUncleCountByBlockHash = defineMethod({
  name: 'eth_getUncleCountByBlockHash',
  group: 'ETH',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS)],
  handler([hash], { services }) {
    const block = services.chain.getBlock(hash);
    return block ? quantity(block.uncleHeaders.length) : null;
  },
});

export const ethGetUncleCountByBlockNumber = defineMethod({
  name: 'eth_getUncleCountByBlockNumber',
  group: 'ETH',
  params: [required(blockNumberParam, INVALID_BLOCK_PARAMS)],
  handler([p], { services }) {
    const block = blockByNumberParam(services, p);
    return block ? quantity(block.uncleHeaders.length) : null;
  },
});

export const uncleMethods: RpcMethod[] = [
  ethGetUncleByBlockHashAndIndex,
  ethGetUncleByBlockNumberAndIndex,
  ethGetUncleCountByBlockHash,
  ethGetUncleCountByBlockNumber,
];
