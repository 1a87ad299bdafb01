/** The CLIQUE group. */
import type { RpcMethod } from '../types.js';
import { cliqueDiscard, cliqueProposals, cliquePropose } from './proposals.js';
import { cliqueGetSignerMetrics } from './signerMetrics.js';
import { cliqueGetSigners, cliqueGetSignersAtHash } from './signers.js';

export const cliqueMethods: RpcMethod[] = [
  cliqueGetSigners,
  cliqueGetSignersAtHash,
  cliquePropose,
  cliqueDiscard,
  cliqueProposals,
  cliqueGetSignerMetrics,
];
