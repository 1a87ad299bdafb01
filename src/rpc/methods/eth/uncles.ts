/**
 * Uncles (ommers): eth_getUncleByBlockHashAndIndex|NumberAndIndex, eth_getUncleCountByBlockHash|Number.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { INVALID_BLOCK_INDEX_PARAMS, INVALID_BLOCK_PARAMS } from '../../errors.js';
import { formatUncle } from '../../format/block.js';
import { quantity } from '../../format/hex.js';
import { blockNumberParam, param, uint64 } from '../../params.js';
import type { RpcMethod } from '../types.js';
import { blockByNumberParam, blockHashParam } from './blocks.js';
import { blockFormatOptions } from './shared.js';

function uncleAt(uncles: readonly BlockHeader[], index: bigint): BlockHeader | undefined {
  return index < BigInt(uncles.length) ? uncles[Number(index)] : undefined;
}

export const ethGetUncleByBlockHashAndIndex: RpcMethod = {
  name: 'eth_getUncleByBlockHashAndIndex',
  group: 'ETH',
  handler(params, { services }) {
    const hash = blockHashParam(params, 0);
    const index = param(params, 1, uint64, INVALID_BLOCK_INDEX_PARAMS);
    const block = services.chain.getBlock(hash);
    const uncle = block ? uncleAt(block.uncleHeaders, index) : undefined;
    return uncle ? formatUncle(uncle, services.chain, blockFormatOptions(services)) : null;
  },
};

export const ethGetUncleByBlockNumberAndIndex: RpcMethod = {
  name: 'eth_getUncleByBlockNumberAndIndex',
  group: 'ETH',
  handler(params, { services }) {
    const p = param(params, 0, blockNumberParam, INVALID_BLOCK_PARAMS);
    const index = param(params, 1, uint64, INVALID_BLOCK_INDEX_PARAMS);
    const block = blockByNumberParam(services, p);
    const uncle = block ? uncleAt(block.uncleHeaders, index) : undefined;
    return uncle ? formatUncle(uncle, services.chain, blockFormatOptions(services)) : null;
  },
};

export const ethGetUncleCountByBlockHash: RpcMethod = {
  name: 'eth_getUncleCountByBlockHash',
  group: 'ETH',
  handler(params, { services }) {
    const block = services.chain.getBlock(blockHashParam(params, 0));
    return block ? quantity(block.uncleHeaders.length) : null;
  },
};

export const ethGetUncleCountByBlockNumber: RpcMethod = {
  name: 'eth_getUncleCountByBlockNumber',
  group: 'ETH',
  handler(params, { services }) {
    const block = blockByNumberParam(services, param(params, 0, blockNumberParam, INVALID_BLOCK_PARAMS));
    return block ? quantity(block.uncleHeaders.length) : null;
  },
};

export const uncleMethods: RpcMethod[] = [
  ethGetUncleByBlockHashAndIndex,
  ethGetUncleByBlockNumberAndIndex,
  ethGetUncleCountByBlockHash,
  ethGetUncleCountByBlockNumber,
];
