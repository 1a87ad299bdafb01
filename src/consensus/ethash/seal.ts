/**
 * Proof-of-work seal verification for imported ethash headers. The epoch cache is built once per
 * epoch and kept for the life of the process.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { Ethash } from '@ethereumjs/ethash';
import { MapDB } from '@ethereumjs/util';

export function createSealVerifier(): (header: BlockHeader) => Promise<string | undefined> {
  let ethash: Ethash | undefined;
  return async (header) => {
    ethash ??= new Ethash(new MapDB() as never);
    const ok = await ethash._verifyPOW(header);
    return ok ? undefined : 'invalid proof-of-work seal (mix hash or nonce does not satisfy the difficulty)';
  };
}
