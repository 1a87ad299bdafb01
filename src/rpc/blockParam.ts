/**
 * Block parameters resolved against the chain, with Besu's answers for the edge cases:
 * - `latest` and `pending` are the head (Alder builds no pending block), `earliest` is block 0;
 * - `safe` / `finalized` before the consensus layer named one: -39001 `Unknown block`;
 * - a number beyond the head, a negative number or an unknown hash resolves to nothing, and each
 *   method answers null (or its own error, see `resolveStateBlock`).
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { ChainStore } from '../chain/chainStore.js';
import {
  BLOCK_NOT_FOUND,
  INVALID_BLOCK_NUMBER_PARAMS,
  INVALID_BLOCK_PARAMS,
  JSON_RPC_NOT_CANONICAL_ERROR,
  RpcError,
  UNKNOWN_BLOCK,
} from './errors.js';
import { hexToBytes } from './format/hex.js';
import { type BlockParam, type BlockTag, blockParam } from './params.js';

export type { BlockParam, BlockTag };

/** The block number a tag or number names (not checked against the head); throws for unknown safe/finalized. */
export function resolveBlockNumber(chain: ChainStore, p: Exclude<BlockParam, { kind: 'hash' }>): bigint {
  if (p.kind === 'number') return p.number;
  switch (p.tag) {
    case 'latest':
    case 'pending':
      return chain.head().number;
    case 'earliest':
      return 0n;
    case 'safe':
    case 'finalized': {
      const hash = p.tag === 'safe' ? chain.safeHash() : chain.finalizedHash();
      const header = hash ? chain.getHeader(hash) : undefined;
      if (!header) throw new RpcError(UNKNOWN_BLOCK);
      return header.number;
    }
  }
}

/**
 * The header a parameter names, or undefined when there is no such block (number beyond the head,
 * negative number, unknown hash). A hash need not be canonical unless `requireCanonical` says so,
 * in which case a non-canonical block also resolves to undefined.
 */
export function resolveHeader(chain: ChainStore, p: BlockParam): BlockHeader | undefined {
  if (p.kind === 'hash') {
    const header = chain.getHeader(hexToBytes(p.hash));
    if (!header) return undefined;
    if (p.requireCanonical && !chain.isCanonical(header.hash(), header.number)) return undefined;
    return header;
  }
  if (p.kind === 'tag' && (p.tag === 'latest' || p.tag === 'pending')) return chain.headHeader();
  const n = resolveBlockNumber(chain, p);
  return n < 0n ? undefined : chain.getHeaderByNumber(n);
}

/**
 * The block whose state eth_getBalance, eth_getCode, eth_getStorageAt, eth_getTransactionCount and
 * eth_getProof read (Besu's block-parameter-or-hash methods): a negative number is -32602
 * `Invalid block number params`, a number beyond the head is undefined (null result), an unknown hash
 * is -32000 `Block not found`, and `requireCanonical` on a side-chain block is -32000 `Invalid input`.
 */
export function resolveStateBlock(chain: ChainStore, p: BlockParam): BlockHeader | undefined {
  if (p.kind === 'hash') {
    const header = chain.getHeader(hexToBytes(p.hash));
    if (!header) throw new RpcError(BLOCK_NOT_FOUND);
    if (p.requireCanonical && !chain.isCanonical(header.hash(), header.number)) {
      throw new RpcError(JSON_RPC_NOT_CANONICAL_ERROR);
    }
    return header;
  }
  if (p.kind === 'number' && p.number < 0n) throw new RpcError(INVALID_BLOCK_NUMBER_PARAMS);
  return resolveHeader(chain, p);
}

const LATEST: BlockParam = Object.freeze({ kind: 'tag', tag: 'latest' });

/**
 * The block parameter at `index`, `latest` when it is left out (as the other clients allow). A request
 * with no parameters at all is refused with Besu's `Invalid block param (block not found)`.
 */
export function stateBlockParam(params: readonly unknown[], index: number): BlockParam {
  const value = params[index];
  if (value === undefined || value === null) {
    if (params.length === 0) throw new RpcError(INVALID_BLOCK_PARAMS);
    return LATEST;
  }
  return blockParam(value, INVALID_BLOCK_PARAMS);
}
