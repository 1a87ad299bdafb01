/** clique_propose, clique_discard and clique_proposals: this node's pending signer votes. */

import { hashMapOrder, javaStringHash } from '../../../util/javaOrder.js';
import { INVALID_ADDRESS_PARAMS, INVALID_PROPOSAL_PARAMS, INVALID_REQUEST, RpcError } from '../../errors.js';
import { address, bool } from '../../params.js';
import { defineMethod, required } from '../define.js';
import { requireClique } from './signers.js';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export const cliquePropose = defineMethod({
  name: 'clique_propose',
  group: 'CLIQUE',
  params: [required(address, INVALID_ADDRESS_PARAMS), required(bool, INVALID_PROPOSAL_PARAMS)],
  requires: ({ services }) => requireClique(services),
  handler([candidate, add], { services }) {
    // The zero address is how a header says "no vote"; it cannot be a candidate.
    if (candidate === ZERO_ADDRESS) throw new RpcError(INVALID_REQUEST);
    requireClique(services).proposals.propose(candidate, add);
    return true;
  },
});

export const cliqueDiscard = defineMethod({
  name: 'clique_discard',
  group: 'CLIQUE',
  params: [required(address, INVALID_ADDRESS_PARAMS)],
  requires: ({ services }) => requireClique(services),
  handler([candidate], { services }) {
    requireClique(services).proposals.discard(candidate);
    return true;
  },
});

export const cliqueProposals = defineMethod({
  name: 'clique_proposals',
  group: 'CLIQUE',
  params: [],
  handler(_args, { services }) {
    const proposals = requireClique(services).proposals.all();
    const out: Record<string, boolean> = {};
    for (const candidate of hashMapOrder([...proposals.keys()], javaStringHash)) {
      out[candidate] = proposals.get(candidate) as boolean;
    }
    return out;
  },
});
