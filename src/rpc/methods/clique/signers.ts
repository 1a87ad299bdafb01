/** clique_getSigners and clique_getSignersAtHash: the signers after a block, ascending. */
import type { Clique } from '../../../consensus/clique/index.js';
import {
  INTERNAL_ERROR,
  INVALID_BLOCK_HASH_PARAMS,
  INVALID_BLOCK_PARAMS,
  METHOD_NOT_FOUND,
  RpcError,
} from '../../errors.js';
import { hexToBytes } from '../../format/hex.js';
import { blockNumberParam, hash32, optionalParam, param } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

/** The Clique service; chains of another consensus have no CLIQUE methods (Besu registers none). */
export function requireClique(services: Services): Clique {
  if (!services.clique) throw new RpcError(METHOD_NOT_FOUND);
  return services.clique;
}

export const cliqueGetSigners: RpcMethod = {
  name: 'clique_getSigners',
  group: 'CLIQUE',
  handler(params, { services }) {
    const clique = requireClique(services);
    const block = optionalParam(params, 0, blockNumberParam, INVALID_BLOCK_PARAMS);
    const chain = services.chain;
    // Besu reads a number or `earliest`; every other tag means the head.
    const number =
      block?.kind === 'number' ? block.number : block?.tag === 'earliest' ? 0n : chain.head().number;
    const header = number < 0n ? undefined : chain.getHeaderByNumber(number);
    if (!header) throw new RpcError(INTERNAL_ERROR);
    return [...clique.signersAfter(header)];
  },
};

export const cliqueGetSignersAtHash: RpcMethod = {
  name: 'clique_getSignersAtHash',
  group: 'CLIQUE',
  handler(params, { services }) {
    const clique = requireClique(services);
    const hash = param(params, 0, hash32, INVALID_BLOCK_HASH_PARAMS);
    const header = services.chain.getHeader(hexToBytes(hash));
    if (!header) throw new RpcError(INTERNAL_ERROR);
    return [...clique.signersAfter(header)];
  },
};
