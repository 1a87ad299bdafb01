/** miner_start and miner_stop: switch block production on and off. */
import { NoCoinbaseError } from '../../../mining/service.js';
import { COINBASE_NOT_SET, RpcError } from '../../errors.js';
import type { RpcMethod } from '../types.js';

export const minerStart: RpcMethod = {
  name: 'miner_start',
  group: 'MINER',
  handler: (_params, { services }) => {
    if (!services.miner) return false;
    try {
      services.miner.start();
    } catch (err) {
      if (err instanceof NoCoinbaseError) throw new RpcError(COINBASE_NOT_SET);
      throw err;
    }
    return true;
  },
};

export const minerStop: RpcMethod = {
  name: 'miner_stop',
  group: 'MINER',
  handler: async (_params, { services }) => {
    if (!services.miner) return false;
    await services.miner.stop();
    return true;
  },
};
