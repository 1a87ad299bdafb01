/**
 * How a block hash is computed. Almost every chain hashes the RLP of the whole header; IBFT 2.0 and
 * QBFT hash the header with the committed seals (and round) cut out of extraData, so that the
 * validators can agree on a block's hash before it is sealed. An engine registers its rule here for
 * its consensus algorithm (the `consensus.algorithm` of the chain's Common) and every header of such
 * a chain — decoded from the database, from a peer or built locally — hashes by it, through
 * `BlockHeader.hash()` and `hashRawHeader`.
 */
import { BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/index.js';

/** The block hash of a header given as its RLP field list; undefined to use the whole-header hash. */
export type HeaderHasher = (raw: Uint8Array[]) => Uint8Array;

const hashers = new Map<string, HeaderHasher>();
let installed = false;

/** Registers the block hash rule of a consensus algorithm (idempotent for the same function). */
export function registerHeaderHasher(algorithm: string, hasher: HeaderHasher): void {
  hashers.set(algorithm, hasher);
  if (installed) return;
  installed = true;
  const wholeHeader = BlockHeader.prototype.hash;
  BlockHeader.prototype.hash = function hash(this: BlockHeader): Uint8Array {
    const cache = (this as unknown as { cache: { hash?: Uint8Array } }).cache;
    if (cache.hash !== undefined) return cache.hash;
    const own = hashers.get(this.common.consensusAlgorithm());
    if (own === undefined) return wholeHeader.call(this);
    const h = own(this.raw());
    if (Object.isFrozen(this)) cache.hash = h;
    return h;
  };
}

/** The block hash of a header given as its RLP field list, by the chain's rule. */
export function hashRawHeader(common: Common, raw: Uint8Array[]): Uint8Array {
  const own = hashers.get(common.consensusAlgorithm());
  return own ? own(raw) : keccak256(RLP.encode(raw));
}
