/**
 * Consensus encodings: debug_getRawBlock, debug_getRawHeader, debug_getRawReceipts,
 * debug_getRawTransaction. Numbers must be `0x` hex here (the cross-client suite refuses `"2"`), and
 * transaction hashes must carry their `0x`.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { type BlockParam, resolveHeader } from '../../blockParam.js';
import { INVALID_BLOCK_PARAMS, INVALID_TRANSACTION_HASH_PARAMS, RpcError } from '../../errors.js';
import { bytes, hexToBytes } from '../../format/hex.js';
import { blockParam, hash32 } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

const TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized']);

function strictBlockParam(value: unknown): BlockParam {
  if (typeof value === 'string' && !TAGS.has(value.toLowerCase()) && !value.startsWith('0x')) {
    throw new RpcError(INVALID_BLOCK_PARAMS);
  }
  return blockParam(value, INVALID_BLOCK_PARAMS);
}

function headerOf(services: Services, params: readonly unknown[]): BlockHeader | undefined {
  return resolveHeader(services.chain, strictBlockParam(params[0]));
}

export const debugGetRawHeader: RpcMethod = {
  name: 'debug_getRawHeader',
  group: 'DEBUG',
  handler(params, { services }) {
    const header = headerOf(services, params);
    const raw = header ? services.chain.getRawHeader(header.hash()) : undefined;
    return raw ? bytes(raw) : null;
  },
};

export const debugGetRawBlock: RpcMethod = {
  name: 'debug_getRawBlock',
  group: 'DEBUG',
  handler(params, { services }) {
    const header = headerOf(services, params);
    const raw = header ? services.chain.getRawBlock(header.hash()) : undefined;
    return raw ? bytes(raw) : null;
  },
};

export const debugGetRawReceipts: RpcMethod = {
  name: 'debug_getRawReceipts',
  group: 'DEBUG',
  handler(params, { services }) {
    const header = headerOf(services, params);
    const raw = header ? services.chain.getRawReceipts(header.hash()) : undefined;
    return raw ? raw.map(bytes) : null;
  },
};

export const debugGetRawTransaction: RpcMethod = {
  name: 'debug_getRawTransaction',
  group: 'DEBUG',
  handler(params, { services }) {
    const value = params[0];
    if (typeof value !== 'string' || !value.startsWith('0x'))
      throw new RpcError(INVALID_TRANSACTION_HASH_PARAMS);
    const hash = hexToBytes(hash32(value, INVALID_TRANSACTION_HASH_PARAMS));
    const location = services.chain.getTxLocation(hash);
    if (!location) return null;
    const tx = services.chain.getBlock(location.blockHash)?.transactions[location.index];
    return tx ? bytes(tx.serialize()) : null;
  },
};

export const debugRawMethods: RpcMethod[] = [
  debugGetRawHeader,
  debugGetRawBlock,
  debugGetRawReceipts,
  debugGetRawTransaction,
];
