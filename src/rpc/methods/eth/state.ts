/**
 * Account state at a block: eth_getBalance, eth_getCode, eth_getStorageAt, eth_getTransactionCount.
 * The block parameter may be left out (latest); a block beyond the head answers null.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address } from '@ethereumjs/util';
import { resolveStateBlock, stateBlockParam } from '../../blockParam.js';
import { INVALID_ADDRESS_PARAMS, INVALID_POSITION_PARAMS } from '../../errors.js';
import { bytes, hexToBytes, padded, quantity } from '../../format/hex.js';
import { address, param, quantity as quantityParam } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

/** The state manager of the block a request names, or undefined when there is no such block. */
export function stateAt(
  services: Services,
  params: readonly unknown[],
  blockIndex: number,
): MerkleStateManager | undefined {
  const header = stateHeaderAt(services, params, blockIndex);
  return header ? services.world.reader(header.stateRoot) : undefined;
}

export function stateHeaderAt(
  services: Services,
  params: readonly unknown[],
  blockIndex: number,
): BlockHeader | undefined {
  return resolveStateBlock(services.chain, stateBlockParam(params, blockIndex));
}

export function addressParam(params: readonly unknown[], index: number): Address {
  return new Address(hexToBytes(param(params, index, address, INVALID_ADDRESS_PARAMS)));
}

export const ethGetBalance: RpcMethod = {
  name: 'eth_getBalance',
  group: 'ETH',
  async handler(params, { services }) {
    const state = stateAt(services, params, 1);
    const who = addressParam(params, 0);
    if (!state) return null;
    const account = await state.getAccount(who);
    return quantity(account?.balance ?? 0n);
  },
};

export const ethGetTransactionCount: RpcMethod = {
  name: 'eth_getTransactionCount',
  group: 'ETH',
  async handler(params, { services }) {
    const state = stateAt(services, params, 1);
    const who = addressParam(params, 0);
    if (!state) return null;
    const account = await state.getAccount(who);
    const nonce = account?.nonce ?? 0n;
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
  async handler(params, { services }) {
    const state = stateAt(services, params, 1);
    const who = addressParam(params, 0);
    if (!state) return null;
    return bytes(await state.getCode(who));
  },
};

export const ethGetStorageAt: RpcMethod = {
  name: 'eth_getStorageAt',
  group: 'ETH',
  async handler(params, { services }) {
    const state = stateAt(services, params, 2);
    const who = addressParam(params, 0);
    const slot = param(params, 1, quantityParam, INVALID_POSITION_PARAMS);
    if (!state) return null;
    const key = hexToBytes(padded(slot));
    const value = await state.getStorage(who, key);
    return padded(value);
  },
};

export const stateMethods: RpcMethod[] = [ethGetBalance, ethGetTransactionCount, ethGetCode, ethGetStorageAt];
