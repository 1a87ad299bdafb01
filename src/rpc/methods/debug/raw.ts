/**
 * Consensus encodings: debug_getRawBlock, debug_getRawHeader, debug_getRawReceipts,
 * debug_getRawTransaction. Numbers must be `0x` hex here (the cross-client suite refuses `"2"`), and
 * transaction hashes must carry their `0x`.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { type BlockParam, resolveHeader } from '../../blockParam.js';
import { INVALID_BLOCK_PARAMS, INVALID_TRANSACTION_HASH_PARAMS } from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { blockParam, type Decoder, decoder, hashBytes } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';

const TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized']);

/** A block parameter whose number must be `0x` hex. */
export const strictBlockParam: Decoder<BlockParam> = decoder(INVALID_BLOCK_PARAMS, (value) => {
  if (typeof value === 'string' && !TAGS.has(value.toLowerCase()) && !value.startsWith('0x'))
    return undefined;
  return blockParam(value, INVALID_BLOCK_PARAMS);
});

/** A transaction hash that carries its `0x`. */
const prefixedHash: Decoder<Uint8Array> = decoder(INVALID_TRANSACTION_HASH_PARAMS, (value) =>
  typeof value === 'string' && value.startsWith('0x')
    ? hashBytes(value, INVALID_TRANSACTION_HASH_PARAMS)
    : undefined,
);

function headerOf(services: Services, p: BlockParam): BlockHeader | undefined {
  return resolveHeader(services.chain, p);
}

export const debugGetRawHeader = defineMethod({
  name: 'debug_getRawHeader',
  group: 'DEBUG',
  params: [required(strictBlockParam)],
  handler([p], { services }) {
    const header = headerOf(services, p);
    const raw = header ? services.chain.getRawHeader(header.hash()) : undefined;
    return raw ? bytes(raw) : null;
  },
});

export const debugGetRawBlock = defineMethod({
  name: 'debug_getRawBlock',
  group: 'DEBUG',
  params: [required(strictBlockParam)],
  handler([p], { services }) {
    const header = headerOf(services, p);
    const raw = header ? services.chain.getRawBlock(header.hash()) : undefined;
    return raw ? bytes(raw) : null;
  },
});

export const debugGetRawReceipts = defineMethod({
  name: 'debug_getRawReceipts',
  group: 'DEBUG',
  params: [required(strictBlockParam)],
  handler([p], { services }) {
    const header = headerOf(services, p);
    const raw = header ? services.chain.getRawReceipts(header.hash()) : undefined;
    return raw ? raw.map(bytes) : null;
  },
});

export const debugGetRawTransaction = defineMethod({
  name: 'debug_getRawTransaction',
  group: 'DEBUG',
  params: [required(prefixedHash)],
  handler([hash], { services }) {
    const location = services.chain.getTxLocation(hash);
    if (!location) return null;
    const tx = services.chain.getBlock(location.blockHash)?.transactions[location.index];
    return tx ? bytes(tx.serialize()) : null;
  },
});

export const debugRawMethods: RpcMethod[] = [
  debugGetRawHeader,
  debugGetRawBlock,
  debugGetRawReceipts,
  debugGetRawTransaction,
];
