/** clique_propose, clique_discard and clique_proposals: this node's pending signer votes. */
import { INVALID_ADDRESS_PARAMS, INVALID_PROPOSAL_PARAMS, INVALID_REQUEST, RpcError } from '../../errors.js';
import { address, bool, param } from '../../params.js';
import type { RpcMethod } from '../types.js';
import { hashMapOrder, javaStringHash } from './javaOrder.js';
import { requireClique } from './signers.js';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export const cliquePropose: RpcMethod = {
  name: 'clique_propose',
  group: 'CLIQUE',
  handler(params, { services }) {
    const clique = requireClique(services);
    const candidate = param(params, 0, address, INVALID_ADDRESS_PARAMS);
    const add = param(params, 1, bool, INVALID_PROPOSAL_PARAMS);
    // The zero address is how a header says "no vote"; it cannot be a candidate.
    if (candidate === ZERO_ADDRESS) throw new RpcError(INVALID_REQUEST);
    clique.proposals.propose(candidate, add);
    return true;
  },
};

export const cliqueDiscard: RpcMethod = {
  name: 'clique_discard',
  group: 'CLIQUE',
  handler(params, { services }) {
    const clique = requireClique(services);
    clique.proposals.discard(param(params, 0, address, INVALID_ADDRESS_PARAMS));
    return true;
  },
};

export const cliqueProposals: RpcMethod = {
  name: 'clique_proposals',
  group: 'CLIQUE',
  handler(_params, { services }) {
    const proposals = requireClique(services).proposals.all();
    const out: Record<string, boolean> = {};
    for (const candidate of hashMapOrder([...proposals.keys()], javaStringHash)) {
      out[candidate] = proposals.get(candidate) as boolean;
    }
    return out;
  },
};
