/** clique_getSigners and clique_getSignersAtHash: the signers after a block, ascending. */
import type { Clique } from '../../../consensus/clique/index.js';
import {
  INTERNAL_ERROR,
  INVALID_BLOCK_HASH_PARAMS,
  INVALID_BLOCK_PARAMS,
  METHOD_NOT_FOUND,
  RpcError,
} from '../../errors.js';
import { blockNumberParam, hashBytes } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, optional, required } from '../define.js';

/** The Clique service; chains of another consensus have no CLIQUE methods (Besu registers none). */
export function requireClique(services: Services): Clique {
  if (!services.clique) throw new RpcError(METHOD_NOT_FOUND);
  return services.clique;
}

export const cliqueGetSigners = defineMethod({
  name: 'clique_getSigners',
  group: 'CLIQUE',
  params: [optional(blockNumberParam, INVALID_BLOCK_PARAMS)],
  requires: ({ services }) => requireClique(services),
  handler([block], { services }) {
    const chain = services.chain;
    // Besu reads a number or `earliest`; every other tag means the head.
    const number =
      block?.kind === 'number' ? block.number : block?.tag === 'earliest' ? 0n : chain.head().number;
    const header = number < 0n ? undefined : chain.getHeaderByNumber(number);
    if (!header) throw new RpcError(INTERNAL_ERROR);
    return [...requireClique(services).signersAfter(header)];
  },
});

export const cliqueGetSignersAtHash = defineMethod({
  name: 'clique_getSignersAtHash',
  group: 'CLIQUE',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS)],
  requires: ({ services }) => requireClique(services),
  handler([hash], { services }) {
    const header = services.chain.getHeader(hash);
    if (!header) throw new RpcError(INTERNAL_ERROR);
    return [...requireClique(services).signersAfter(header)];
  },
});
