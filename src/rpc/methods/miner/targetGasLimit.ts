/** miner_changeTargetGasLimit: the gas limit mined blocks move towards. */
import { INVALID_TARGET_GAS_LIMIT_PARAMS, RpcError } from '../../errors.js';
import { param, uint64 } from '../../params.js';
import type { RpcMethod } from '../types.js';
import { requireMiner } from './shared.js';

/** The protocol's minimum gas limit. */
const MIN_GAS_LIMIT = 5000n;
const MAX_LONG = (1n << 63n) - 1n;

export const minerChangeTargetGasLimit: RpcMethod = {
  name: 'miner_changeTargetGasLimit',
  group: 'MINER',
  handler: (params, { services }) => {
    const miner = requireMiner(services);
    const target = param(params, 0, uint64, INVALID_TARGET_GAS_LIMIT_PARAMS);
    if (target < MIN_GAS_LIMIT || target > MAX_LONG) throw new RpcError(INVALID_TARGET_GAS_LIMIT_PARAMS);
    miner.setTargetGasLimit(target);
    return 'Success';
  },
};
