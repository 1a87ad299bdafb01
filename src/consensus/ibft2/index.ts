/**
 * IBFT 2.0: the BFT engine with IBFT 2.0's extraData (RLP null for no vote, 4-byte round), nonce 0 and
 * no ommers, validators voted in block headers. Its RPC namespace is `ibft_*`; its devp2p capability
 * `IBF`/1.
 */
import type { GenesisSpec } from '../../config/genesis.js';
import { BftConsensus, type BftEngineDeps } from '../bft/consensus.js';
import { contractCaller } from '../bft/contractCall.js';

export function createIbft2Consensus(genesis: GenesisSpec, deps: BftEngineDeps): BftConsensus {
  return new BftConsensus('ibft2', deps.chain, genesis, {
    customCrypto: deps.customCrypto,
    call: deps.world ? contractCaller(deps.chain, deps.world) : undefined,
  });
}
