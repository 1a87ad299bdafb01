/**
 * eth_getWork / eth_submitWork: Ethash work for external miners. getWork answers the seal hash of the
 * block being mined, the epoch seed, the boundary 2^256/difficulty and the block number; submitWork
 * is true only for a nonce and mix digest that seal that block, which then joins the chain.
 */
import {
  INVALID_MIX_HASH_PARAMS,
  INVALID_NONCE_PARAMS,
  INVALID_POW_HASH_PARAMS,
  NO_MINING_WORK_FOUND,
  RpcError,
  type RpcErrorSpec,
} from '../../errors.js';
import { bytes, padded, quantity } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';

export const ethGetWork: RpcMethod = {
  name: 'eth_getWork',
  group: 'ETH',
  handler: (_params, { services }) => {
    const work = services.miner?.work();
    if (!work) throw new RpcError(NO_MINING_WORK_FOUND);
    return [bytes(work.headerHash), bytes(work.seed), padded(work.target, 32), quantity(work.number)];
  },
};

/** Hex bytes of exactly `size` bytes, left-padding shorter values as Besu's lenient parsers do. */
function fixedBytes(value: unknown, size: number, error: RpcErrorSpec): Uint8Array {
  if (typeof value !== 'string') throw new RpcError(error);
  const digits = value.startsWith('0x') ? value.slice(2) : value;
  if (!/^[0-9a-fA-F]*$/.test(digits) || digits.length > size * 2) throw new RpcError(error);
  return new Uint8Array(Buffer.from(digits.padStart(size * 2, '0'), 'hex'));
}

export const ethSubmitWork: RpcMethod = {
  name: 'eth_submitWork',
  group: 'ETH',
  handler: (params, { services }) => {
    const nonce = fixedBytes(params[0], 8, INVALID_NONCE_PARAMS);
    const headerHash = fixedBytes(params[1], 32, INVALID_POW_HASH_PARAMS);
    const mixDigest = fixedBytes(params[2], 32, INVALID_MIX_HASH_PARAMS);
    const miner = services.miner;
    if (!miner?.work()) throw new RpcError(NO_MINING_WORK_FOUND);
    return miner.submitWork(nonce, headerHash, mixDigest);
  },
};

export const workMethods: RpcMethod[] = [ethGetWork, ethSubmitWork];
