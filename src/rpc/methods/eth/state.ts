/**
 * Account state at a block: eth_getBalance, eth_getCode, eth_getStorageAt, eth_getTransactionCount.
 * The block parameter may be left out (latest); a block beyond the head or an unknown block hash
 * answers null. Reads go through the world state's one read path (`WorldState.at`).
 */
import type { BlockHeader } from '@ethereumjs/block';
import { Address } from '@ethereumjs/util';
import type { StateSnapshot } from '../../../state/stateSnapshot.js';
import { resolveStateBlock, stateBlockParam } from '../../blockParam.js';
import { INVALID_ADDRESS_PARAMS, INVALID_POSITION_PARAMS } from '../../errors.js';
import { bytes, hexToBytes, padded, quantity } from '../../format/hex.js';
import { address, param, quantity as quantityParam } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

/** The state of the block a request names, or undefined when there is no such block. */
export function stateAt(
  services: Services,
  params: readonly unknown[],
  blockIndex: number,
): StateSnapshot | undefined {
  const header = stateHeaderAt(services, params, blockIndex);
  return header ? services.world.at(header.stateRoot) : undefined;
}

/**
 * The block whose state a request reads. As Besu (since 25.12, with the other clients): a number
 * beyond the head and a hash that names no block both answer null; a negative number and a
 * non-canonical block asked for with `requireCanonical` are errors (see `resolveStateBlock`).
 */
export function stateHeaderAt(
  services: Services,
  params: readonly unknown[],
  blockIndex: number,
): BlockHeader | undefined {
  const p = stateBlockParam(params, blockIndex);
  if (p.kind === 'hash' && !services.chain.getHeader(hexToBytes(p.hash))) return undefined;
  return resolveStateBlock(services.chain, p);
}

export function addressParam(params: readonly unknown[], index: number): Address {
  return new Address(hexToBytes(param(params, index, address, INVALID_ADDRESS_PARAMS)));
}

export const ethGetBalance: RpcMethod = {
  name: 'eth_getBalance',
  group: 'ETH',
  handler(params, { services }) {
    const state = stateAt(services, params, 1);
    const who = addressParam(params, 0);
    if (!state) return null;
    return quantity(state.balance(who.bytes));
  },
};

export const ethGetTransactionCount: RpcMethod = {
  name: 'eth_getTransactionCount',
  group: 'ETH',
  handler(params, { services }) {
    const state = stateAt(services, params, 1);
    const who = addressParam(params, 0);
    if (!state) return null;
    const nonce = state.nonce(who.bytes);
    // `pending` counts the sender's executable pool transactions.
    const pool = services.txPool;
    if (pool && isPendingTag(params[1])) return quantity(pool.nextNonce(who, nonce));
    return quantity(nonce);
  },
};

function isPendingTag(p: unknown): boolean {
  return p === 'pending';
}

export const ethGetCode: RpcMethod = {
  name: 'eth_getCode',
  group: 'ETH',
  handler(params, { services }) {
    const state = stateAt(services, params, 1);
    const who = addressParam(params, 0);
    if (!state) return null;
    return bytes(state.code(who.bytes));
  },
};

export const ethGetStorageAt: RpcMethod = {
  name: 'eth_getStorageAt',
  group: 'ETH',
  handler(params, { services }) {
    const state = stateAt(services, params, 2);
    const who = addressParam(params, 0);
    const slot = param(params, 1, quantityParam, INVALID_POSITION_PARAMS);
    if (!state) return null;
    return padded(state.storage(who.bytes, hexToBytes(padded(slot))));
  },
};

export const stateMethods: RpcMethod[] = [ethGetBalance, ethGetTransactionCount, ethGetCode, ethGetStorageAt];
