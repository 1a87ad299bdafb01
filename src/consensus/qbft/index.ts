/**
 * QBFT: the BFT engine with QBFT's extraData (empty list for no vote, scalar round), validators voted
 * in block headers or read from a validator contract, switching by transition. Its RPC namespace is
 * `qbft_*`; its devp2p capability `istanbul`/100.
 */
import type { GenesisSpec } from '../../config/genesis.js';
import { BftConsensus, type BftEngineDeps } from '../bft/consensus.js';
import { contractCaller } from '../bft/contractCall.js';

export function createQbftConsensus(genesis: GenesisSpec, deps: BftEngineDeps): BftConsensus {
  return new BftConsensus('qbft', deps.chain, genesis, {
    customCrypto: deps.customCrypto,
    call: deps.world ? contractCaller(deps.chain, deps.world) : undefined,
  });
}
