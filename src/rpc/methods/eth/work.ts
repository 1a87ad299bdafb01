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
} from '../../errors.js';
import { bytes, padded, quantity } from '../../format/hex.js';
import { type Decoder, decoder } from '../../params.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';

export const ethGetWork = defineMethod({
  name: 'eth_getWork',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => {
    const work = services.miner?.work();
    if (!work) throw new RpcError(NO_MINING_WORK_FOUND);
    return [bytes(work.headerHash), bytes(work.seed), padded(work.target, 32), quantity(work.number)];
  },
});

/** Hex bytes of exactly `size` bytes, left-padding shorter values as Besu's lenient parsers do. */
function fixedBytes(size: number): Decoder<Uint8Array> {
  return decoder(INVALID_NONCE_PARAMS, (value) => {
    if (typeof value !== 'string') return undefined;
    const digits = value.startsWith('0x') ? value.slice(2) : value;
    if (!/^[0-9a-fA-F]*$/.test(digits) || digits.length > size * 2) return undefined;
    return new Uint8Array(Buffer.from(digits.padStart(size * 2, '0'), 'hex'));
  });
}

export const ethSubmitWork = defineMethod({
  name: 'eth_submitWork',
  group: 'ETH',
  params: [
    required(fixedBytes(8), INVALID_NONCE_PARAMS),
    required(fixedBytes(32), INVALID_POW_HASH_PARAMS),
    required(fixedBytes(32), INVALID_MIX_HASH_PARAMS),
  ],
  handler: ([nonce, headerHash, mixDigest], { services }) => {
    const miner = services.miner;
    if (!miner?.work()) throw new RpcError(NO_MINING_WORK_FOUND);
    return miner.submitWork(nonce, headerHash, mixDigest);
  },
});

export const workMethods: RpcMethod[] = [ethGetWork, ethSubmitWork];
