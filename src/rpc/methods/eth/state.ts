/**
 * Account state at a block: eth_getBalance, eth_getCode, eth_getStorageAt, eth_getTransactionCount.
 * The block parameter may be left out (latest); a block beyond the head or an unknown block hash
 * answers null. Reads go through the world state's one read path (`WorldState.at`).
 */
import type { BlockHeader } from '@ethereumjs/block';
import { Address } from '@ethereumjs/util';
import type { StateSnapshot } from '../../../state/stateSnapshot.js';
import { type BlockParam, resolveStateBlock, stateBlockParam } from '../../blockParam.js';
import { INVALID_ADDRESS_PARAMS, INVALID_POSITION_PARAMS } from '../../errors.js';
import { bytes, hexToBytes, padded, quantity } from '../../format/hex.js';
import { address, quantity as quantityParam } from '../../params.js';
import type { Services } from '../../services.js';
import { deferred, defineMethod, type ParamSpec, required } from '../define.js';
import type { RpcMethod } from '../types.js';

/**
 * The block parameter of the state methods: a number, tag, hash or EIP-1898 object; `latest` when
 * left out (a request with no parameters at all is `Invalid block param`).
 */
export function stateBlock(): ParamSpec<BlockParam> {
  return { decode: (params, index) => stateBlockParam(params, index) };
}

/**
 * The block whose state a request reads. As Besu (since 25.12, with the other clients): a number
 * beyond the head and a hash that names no block both answer null; a negative number and a
 * non-canonical block asked for with `requireCanonical` are errors (see `resolveStateBlock`).
 */
export function stateHeader(services: Services, p: BlockParam): BlockHeader | undefined {
  if (p.kind === 'hash' && !services.chain.getHeader(hexToBytes(p.hash))) return undefined;
  return resolveStateBlock(services.chain, p);
}

/** An account address parameter, read when the handler asks (after the block was looked up, as Besu). */
export const accountAddress = deferred(required(address, INVALID_ADDRESS_PARAMS));

/**
 * The state's key of a decoded address parameter (`0x` + 40 lowercase digits): its digits, so the
 * account is looked up without turning the text into bytes and back.
 */
function accountKey(address: string): string {
  return address.slice(2);
}

/** The committed state at the block, or undefined when there is no such block. */
function stateAt(services: Services, p: BlockParam): StateSnapshot | undefined {
  const header = stateHeader(services, p);
  return header ? services.world.at(header.stateRoot) : undefined;
}

export const ethGetBalance = defineMethod({
  name: 'eth_getBalance',
  group: 'ETH',
  params: [accountAddress, stateBlock()],
  order: [1, 0],
  handler([who, block], { services }) {
    const state = stateAt(services, block);
    const key = accountKey(who());
    if (!state) return null;
    return quantity(state.accountSync(key)?.balance ?? 0n);
  },
});

export const ethGetTransactionCount = defineMethod({
  name: 'eth_getTransactionCount',
  group: 'ETH',
  params: [accountAddress, stateBlock()],
  order: [1, 0],
  handler([who, block], { services }) {
    const state = stateAt(services, block);
    const account = hexToBytes(who());
    if (!state) return null;
    const nonce = state.nonce(account);
    // `pending` counts the sender's executable pool transactions.
    const pool = services.txPool;
    if (pool && block.kind === 'tag' && block.tag === 'pending') {
      return quantity(pool.nextNonce(new Address(account), nonce));
    }
    return quantity(nonce);
  },
});

export const ethGetCode = defineMethod({
  name: 'eth_getCode',
  group: 'ETH',
  params: [accountAddress, stateBlock()],
  order: [1, 0],
  handler([who, block], { services }) {
    const state = stateAt(services, block);
    const account = hexToBytes(who());
    if (!state) return null;
    return bytes(state.code(account));
  },
});

export const ethGetStorageAt = defineMethod({
  name: 'eth_getStorageAt',
  group: 'ETH',
  params: [accountAddress, deferred(required(quantityParam, INVALID_POSITION_PARAMS)), stateBlock()],
  order: [2, 0, 1],
  handler([who, position, block], { services }) {
    const state = stateAt(services, block);
    const account = hexToBytes(who());
    const slot = position();
    if (!state) return null;
    return padded(state.storage(account, hexToBytes(padded(slot))));
  },
});

export const stateMethods: RpcMethod[] = [ethGetBalance, ethGetTransactionCount, ethGetCode, ethGetStorageAt];
