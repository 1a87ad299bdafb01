/**
 * Calls on a block's state for the validator contract: the call simulator over the chain and world
 * state, with the block's coinbase as COINBASE, no gas cap beyond the block's gas limit.
 */

import { hexToBytes } from '@ethereumjs/util';
import type { ChainStore } from '../../chain/chainStore.js';
import { CallSimulator } from '../../execution/simulator.js';
import type { WorldState } from '../../state/worldState.js';
import type { ContractCaller } from './validators.js';

export function contractCaller(chain: ChainStore, world: WorldState): ContractCaller {
  let simulator: CallSimulator | undefined;
  return async (header, contract, data) => {
    simulator ??= new CallSimulator(chain, world, 0n, (h) => h.coinbase);
    const result = await simulator.simulate(header, { to: hexToBytes(contract as `0x${string}`), data });
    if (result.status !== 'success')
      throw new Error(
        result.status === 'revert' ? 'the call reverted' : (result.haltReason ?? 'the call halted'),
      );
    return result.output;
  };
}
