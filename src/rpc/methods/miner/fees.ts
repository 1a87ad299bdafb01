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
import type { RpcMethod } from '../types.js';
import { requireMiner } from './shared.js';

/** A wei amount as Besu's `Wei.fromHexString` reads it; the parse failure goes into `data`. */
function weiParam(value: unknown, error: RpcErrorSpec): bigint {
  if (typeof value !== 'string') throw new RpcError(error);
  const digits = value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : undefined;
  if (digits === undefined) throw new RpcError(error, `Invalid hex string: ${value}`);
  if (!/^[0-9a-fA-F]+$/.test(digits)) throw new RpcError(error, `Illegal character in hex string: ${value}`);
  const wei = BigInt(`0x${digits}`);
  if (wei >= 1n << 256n) throw new RpcError(error, `Hex value is too large: ${value}`);
  return wei;
}

export const minerGetMinGasPrice: RpcMethod = {
  name: 'miner_getMinGasPrice',
  group: 'MINER',
  handler: (_params, { services }) => quantity(requireMiner(services).settings.minGasPrice),
};

export const minerSetMinGasPrice: RpcMethod = {
  name: 'miner_setMinGasPrice',
  group: 'MINER',
  handler: (params, { services }) => {
    const miner = requireMiner(services);
    miner.setMinGasPrice(weiParam(params[0], INVALID_MIN_GAS_PRICE_PARAMS));
    return true;
  },
};

export const minerGetMinPriorityFee: RpcMethod = {
  name: 'miner_getMinPriorityFee',
  group: 'MINER',
  handler: (_params, { services }) => quantity(requireMiner(services).settings.minPriorityFee),
};

export const minerSetMinPriorityFee: RpcMethod = {
  name: 'miner_setMinPriorityFee',
  group: 'MINER',
  handler: (params, { services }) => {
    const miner = requireMiner(services);
    miner.setMinPriorityFee(weiParam(params[0], INVALID_MIN_PRIORITY_FEE_PARAMS));
    return true;
  },
};
