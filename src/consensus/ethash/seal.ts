/**
 * Proof-of-work seal verification for imported ethash headers: hashimoto-light over the epoch cache
 * (kept under the data directory), the mix digest must match and the result meet the difficulty.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { boundary, bytesToBigIntBE, epochOf, sealHash } from './algorithm.js';
import type { EthashCaches } from './caches.js';

export function createSealVerifier(
  caches: EthashCaches,
): (header: BlockHeader) => Promise<string | undefined> {
  return async (header) => {
    const epoch = await caches.get(epochOf(header.number));
    const { mixDigest, result } = epoch.hashimoto.run(sealHash(header.raw()), header.nonce);
    if (Buffer.compare(Buffer.from(mixDigest), Buffer.from(header.mixHash)) !== 0)
      return 'invalid proof-of-work seal (mix hash does not match the nonce)';
    if (bytesToBigIntBE(result) > boundary(header.difficulty))
      return 'invalid proof-of-work seal (nonce does not satisfy the difficulty)';
    return undefined;
  };
}
