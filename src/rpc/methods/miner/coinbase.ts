/** miner_setCoinbase (and its alias miner_setEtherbase): the beneficiary of the next mined blocks. */
import { INVALID_ADDRESS_PARAMS } from '../../errors.js';
import { address, param } from '../../params.js';
import type { RpcMethod } from '../types.js';
import { requireMiner } from './shared.js';

function setCoinbase(name: string): RpcMethod {
  return {
    name,
    group: 'MINER',
    handler: (params, { services }) => {
      const miner = requireMiner(services);
      miner.setCoinbase(param(params, 0, address, INVALID_ADDRESS_PARAMS));
      return true;
    },
  };
}

export const minerSetCoinbase = setCoinbase('miner_setCoinbase');
export const minerSetEtherbase = setCoinbase('miner_setEtherbase');
