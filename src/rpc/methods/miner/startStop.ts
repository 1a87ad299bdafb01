/** miner_start and miner_stop: switch block production on and off. */
import { defineMethod } from '../define.js';

/** Without a coinbase the miner refuses to start (`NoCoinbaseError`, answered by rpc/errors.ts). */
export const minerStart = defineMethod({
  name: 'miner_start',
  group: 'MINER',
  params: [],
  handler: (_args, { services }) => {
    if (!services.miner) return false;
    services.miner.start();
    return true;
  },
});

export const minerStop = defineMethod({
  name: 'miner_stop',
  group: 'MINER',
  params: [],
  handler: async (_args, { services }) => {
    if (!services.miner) return false;
    await services.miner.stop();
    return true;
  },
});
