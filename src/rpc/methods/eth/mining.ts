/** eth_mining, eth_hashrate and eth_submitHashrate. */
import { INVALID_HASH_RATE_PARAMS, INVALID_SEALER_ID_PARAMS, RpcError } from '../../errors.js';
import { quantity } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';

export const ethMining: RpcMethod = {
  name: 'eth_mining',
  group: 'ETH',
  handler: (_params, { services }) => services.miner?.isMining() ?? false,
};

export const ethHashrate: RpcMethod = {
  name: 'eth_hashrate',
  group: 'ETH',
  handler: (_params, { services }) => quantity(services.miner?.hashrate() ?? 0n),
};

function hexParam(value: unknown, error: typeof INVALID_HASH_RATE_PARAMS): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]*$/.test(value) || value.length % 2 === 1)
    throw new RpcError(error);
  return value.toLowerCase();
}

/** A sealer reports its rate (32-byte hex) under its own id; the rate counts in eth_hashrate. */
export const ethSubmitHashrate: RpcMethod = {
  name: 'eth_submitHashrate',
  group: 'ETH',
  handler: (params, { services }) => {
    const rate = hexParam(params[0], INVALID_HASH_RATE_PARAMS);
    const id = hexParam(params[1], INVALID_SEALER_ID_PARAMS);
    if (!services.miner) return false;
    services.miner.submitHashrate(id, rate === '0x' ? 0n : BigInt(rate) & 0xffffffffffffffffn);
    return true;
  },
};

export const miningMethods: RpcMethod[] = [ethMining, ethHashrate, ethSubmitHashrate];
