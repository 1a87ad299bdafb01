/** miner_changeTargetGasLimit: the gas limit mined blocks move towards. */
import { INVALID_TARGET_GAS_LIMIT_PARAMS } from '../../errors.js';
import { type Decoder, decoder, uint64 } from '../../params.js';
import { defineMethod, required } from '../define.js';
import { requireMiner } from './shared.js';

/** The protocol's minimum gas limit. */
const MIN_GAS_LIMIT = 5000n;
const MAX_LONG = (1n << 63n) - 1n;

/** A gas limit from the protocol's minimum to the largest Java long. */
const gasLimit: Decoder<bigint> = decoder(INVALID_TARGET_GAS_LIMIT_PARAMS, (value) => {
  const target = uint64(value, INVALID_TARGET_GAS_LIMIT_PARAMS);
  return target < MIN_GAS_LIMIT || target > MAX_LONG ? undefined : target;
});

export const minerChangeTargetGasLimit = defineMethod({
  name: 'miner_changeTargetGasLimit',
  group: 'MINER',
  params: [required(gasLimit)],
  requires: ({ services }) => requireMiner(services),
  handler: ([target], { services }) => {
    requireMiner(services).setTargetGasLimit(target);
    return 'Success';
  },
});
