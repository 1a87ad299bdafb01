/**
 * Blocks: eth_getBlockByHash, eth_getBlockByNumber, eth_getBlockTransactionCountByHash|ByNumber.
 * An unknown block answers null.
 */
import type { Block } from '@ethereumjs/block';
import { resolveBlockNumber } from '../../blockParam.js';
import { INVALID_BLOCK_HASH_PARAMS, INVALID_BLOCK_PARAMS, INVALID_PARAMS } from '../../errors.js';
import { formatBlock, formatStoredBlock } from '../../format/block.js';
import { bytes, quantity } from '../../format/hex.js';
import { type BlockParam, blockNumberParam, bool, hashBytes } from '../../params.js';
import type { RawJson } from '../../rawJson.js';
import type { Services } from '../../services.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';

/** The canonical block a number or tag names; undefined beyond the head or below zero. */
export function blockByNumberParam(
  services: Services,
  p: Exclude<BlockParam, { kind: 'hash' }>,
): Block | undefined {
  const chain = services.chain;
  const n =
    p.kind === 'tag' && (p.tag === 'latest' || p.tag === 'pending')
      ? chain.head().number
      : resolveBlockNumber(chain, p);
  return n < 0n ? undefined : chain.getBlockByNumber(n);
}

/** Hash of the canonical block a number or tag names; undefined beyond the head or below zero. */
function canonicalHashOf(
  services: Services,
  p: Exclude<BlockParam, { kind: 'hash' }>,
): Uint8Array | undefined {
  const chain = services.chain;
  if (p.kind === 'tag' && (p.tag === 'latest' || p.tag === 'pending')) return chain.head().hash;
  const n = resolveBlockNumber(chain, p);
  return n < 0n ? undefined : chain.canonicalHash(n);
}

const blockKey = (hash: Uint8Array, full: boolean) => `block:${full ? 'full' : 'hashes'}:${bytes(hash)}`;

/**
 * A block as eth_getBlockBy* answers it, serialised once and kept in the response cache (newHeads
 * notifications use it, so the reads that follow a notification are answered from the cache).
 */
export function blockAnswerOf(services: Services, block: Block, full: boolean): RawJson {
  const cache = services.responseCache;
  const key = blockKey(block.hash(), full);
  return cache.get(key) ?? cache.put(key, formatBlock(block, full, services.chain, services.blockFormat));
}

/** The block with this hash as the answer of eth_getBlockBy*, from the response cache when there. */
function blockAnswer(services: Services, hash: Uint8Array, full: boolean): RawJson | null {
  const cache = services.responseCache;
  const key = blockKey(hash, full);
  const hit = cache.get(key);
  if (hit) return hit;
  // From the stored RLP when it can be (no block object built); the decoded block otherwise.
  const stored = formatStoredBlock(services.chain, hash, full, services.blockFormat);
  if (stored !== undefined) return cache.put(key, stored);
  const block = services.chain.getBlock(hash);
  if (!block) return null;
  return cache.put(key, formatBlock(block, full, services.chain, services.blockFormat));
}

export const ethGetBlockByHash = defineMethod({
  name: 'eth_getBlockByHash',
  group: 'ETH',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS), required(bool, INVALID_PARAMS)],
  handler: ([hash, full], { services }) => blockAnswer(services, hash, full),
});

export const ethGetBlockByNumber = defineMethod({
  name: 'eth_getBlockByNumber',
  group: 'ETH',
  params: [required(blockNumberParam, INVALID_BLOCK_PARAMS), required(bool, INVALID_PARAMS)],
  handler([p, full], { services }) {
    const hash = canonicalHashOf(services, p);
    return hash ? blockAnswer(services, hash, full) : null;
  },
});

export const ethGetBlockTransactionCountByHash = defineMethod({
  name: 'eth_getBlockTransactionCountByHash',
  group: 'ETH',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS)],
  handler([hash], { services }) {
    const block = services.chain.getBlock(hash);
    return block ? quantity(block.transactions.length) : null;
  },
});

export const ethGetBlockTransactionCountByNumber = defineMethod({
  name: 'eth_getBlockTransactionCountByNumber',
  group: 'ETH',
  params: [required(blockNumberParam, INVALID_BLOCK_PARAMS)],
  handler([p], { services }) {
    const block = blockByNumberParam(services, p);
    return block ? quantity(block.transactions.length) : null;
  },
});

export const blockMethods: RpcMethod[] = [
  ethGetBlockByHash,
  ethGetBlockByNumber,
  ethGetBlockTransactionCountByHash,
  ethGetBlockTransactionCountByNumber,
];
