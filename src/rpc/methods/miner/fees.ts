/**
 * miner_getMinGasPrice / miner_setMinGasPrice and miner_getMinPriorityFee / miner_setMinPriorityFee:
 * the floors a transaction must meet to be mined (the gas price floor also guards the pool).
 */
import {
  INVALID_MIN_GAS_PRICE_PARAMS,
  INVALID_MIN_PRIORITY_FEE_PARAMS,
  RpcError,
  type RpcErrorSpec,
} from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { defineMethod, type ParamSpec } from '../define.js';
import { requireMiner } from './shared.js';

/** A wei amount as Besu's `Wei.fromHexString` reads it; the parse failure goes into `data`. */
function wei(error: RpcErrorSpec): ParamSpec<bigint> {
  return {
    decode(params, index) {
      const value = params[index];
      if (typeof value !== 'string') throw new RpcError(error);
      const digits = value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : undefined;
      if (digits === undefined) throw new RpcError(error, `Invalid hex string: ${value}`);
      if (!/^[0-9a-fA-F]+$/.test(digits))
        throw new RpcError(error, `Illegal character in hex string: ${value}`);
      const amount = BigInt(`0x${digits}`);
      if (amount >= 1n << 256n) throw new RpcError(error, `Hex value is too large: ${value}`);
      return amount;
    },
  };
}

export const minerGetMinGasPrice = defineMethod({
  name: 'miner_getMinGasPrice',
  group: 'MINER',
  params: [],
  handler: (_args, { services }) => quantity(requireMiner(services).settings.minGasPrice),
});

export const minerSetMinGasPrice = defineMethod({
  name: 'miner_setMinGasPrice',
  group: 'MINER',
  params: [wei(INVALID_MIN_GAS_PRICE_PARAMS)],
  requires: ({ services }) => requireMiner(services),
  handler: ([price], { services }) => {
    requireMiner(services).setMinGasPrice(price);
    return true;
  },
});

export const minerGetMinPriorityFee = defineMethod({
  name: 'miner_getMinPriorityFee',
  group: 'MINER',
  params: [],
  handler: (_args, { services }) => quantity(requireMiner(services).settings.minPriorityFee),
});

export const minerSetMinPriorityFee = defineMethod({
  name: 'miner_setMinPriorityFee',
  group: 'MINER',
  params: [wei(INVALID_MIN_PRIORITY_FEE_PARAMS)],
  requires: ({ services }) => requireMiner(services),
  handler: ([fee], { services }) => {
    requireMiner(services).setMinPriorityFee(fee);
    return true;
  },
});
