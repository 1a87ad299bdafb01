/** miner_setCoinbase (and its alias miner_setEtherbase): the beneficiary of the next mined blocks. */
import { INVALID_ADDRESS_PARAMS } from '../../errors.js';
import { address } from '../../params.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';
import { requireMiner } from './shared.js';

function setCoinbase(name: string): RpcMethod {
  return defineMethod({
    name,
    group: 'MINER',
    params: [required(address, INVALID_ADDRESS_PARAMS)],
    requires: ({ services }) => requireMiner(services),
    handler: ([coinbase], { services }) => {
      requireMiner(services).setCoinbase(coinbase);
      return true;
    },
  });
}

export const minerSetCoinbase = setCoinbase('miner_setCoinbase');
export const minerSetEtherbase = setCoinbase('miner_setEtherbase');
