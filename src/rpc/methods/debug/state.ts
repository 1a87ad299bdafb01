/**
 * State inspection: debug_accountAt, the account as transaction `txIndex` of a block found it (the
 * block's earlier transactions applied). `code` is `0x0` for an account without code, as Besu writes
 * it. An index outside the block is `Invalid transaction params`; an account that does not exist there
 * is `Account not found`.
 */
import { RLP } from '@ethereumjs/rlp';
import {
  Address,
  bytesToBigInt,
  bytesToHex,
  hexToBytes,
  KECCAK256_NULL,
  setLengthLeft,
} from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { trieRange } from '../../../state/ranges.js';
import { resolveHeader } from '../../blockParam.js';
import {
  BLOCK_NOT_FOUND,
  INVALID_ADDRESS_HASH_PARAMS,
  INVALID_ADDRESS_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_DATA_HASH_PARAMS,
  INVALID_MAX_RESULTS_PARAMS,
  INVALID_TRANSACTION_INDEX_PARAMS,
  INVALID_TRANSACTION_LIMIT_PARAMS,
  INVALID_TRANSACTION_PARAMS,
  NO_ACCOUNT_FOUND,
  RpcError,
} from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { address, blockParam, decoder } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, raw, required } from '../define.js';
import type { RpcMethod } from '../types.js';

/** A transaction index: a non-negative integer (a JSON number or its decimal text). */
const txIndex = decoder(INVALID_TRANSACTION_INDEX_PARAMS, (value) => {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 ? n : undefined;
});

interface AccountAt {
  code: string;
  nonce: string;
  balance: string;
  codehash: string;
}

export const debugAccountAt = defineMethod({
  name: 'debug_accountAt',
  group: 'DEBUG',
  params: [
    required(blockParam, INVALID_BLOCK_PARAMS),
    required(txIndex),
    required(address, INVALID_ADDRESS_PARAMS),
  ],
  async handler([p, index, account], { services }) {
    const header = resolveHeader(services.chain, p);
    const block = header ? services.chain.getBlock(header.hash()) : undefined;
    if (!block) throw new RpcError(BLOCK_NOT_FOUND);
    if (block.transactions.length === 0 || index < 0 || index >= block.transactions.length)
      throw new RpcError(INVALID_TRANSACTION_PARAMS);
    const target = new Address(hexToBytes(account as `0x${string}`));
    const found = await services.importer.processor.replay<AccountAt | undefined>(block, {
      stopBeforeTx: index,
      async inspect(vm: VM) {
        const a = await vm.stateManager.getAccount(target);
        if (!a) return undefined;
        const code = await vm.stateManager.getCode(target);
        return {
          code: code.length === 0 ? '0x0' : bytesToHex(code),
          nonce: quantity(a.nonce),
          balance: quantity(a.balance),
          codehash: bytesToHex(a.codeHash ?? KECCAK256_NULL),
        };
      },
    });
    if (!found) throw new RpcError(NO_ACCOUNT_FOUND);
    return found;
  },
});

/** A hashed-key start: hex of up to 32 bytes, left-padded (Besu's lenient Bytes32). */
function startKey(value: unknown, error: Parameters<typeof decoder>[0]): Uint8Array {
  if (typeof value !== 'string') throw new RpcError(error);
  const body = value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value;
  if (body.length > 64 || !/^[0-9a-fA-F]*$/.test(body)) throw new RpcError(error);
  return setLengthLeft(hexToBytes(`0x${body.length % 2 ? `0${body}` : body}`), 32);
}

const addressHash = decoder(INVALID_ADDRESS_HASH_PARAMS, (value) =>
  startKey(value, INVALID_ADDRESS_HASH_PARAMS),
);
const dataHash = decoder(INVALID_DATA_HASH_PARAMS, (value) => startKey(value, INVALID_DATA_HASH_PARAMS));
const count = (error: Parameters<typeof decoder>[0]) =>
  decoder(error, (value) =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 2 ** 31 ? value : undefined,
  );

/** Java's HashMap iteration order for a small map of string keys (how Besu's addressMap comes out). */
function javaHashMapOrder(keys: readonly string[]): string[] {
  const hashOf = (str: string): number => {
    let h = 0;
    for (let i = 0; i < str.length; i++) h = (Math.imul(31, h) + str.charCodeAt(i)) | 0;
    return h ^ (h >>> 16);
  };
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  return keys
    .map((key, index) => ({ key, index, bucket: hashOf(key) & (capacity - 1) }))
    .sort((a, b) => a.bucket - b.bucket || a.index - b.index)
    .map((e) => e.key);
}

const ZERO_ADDRESS = `0x${'00'.repeat(20)}`;

/**
 * debug_accountRange: up to `maxResults` accounts of the state after the block, from an address hash
 * on, as `{addressMap: {addressHash: address}, nextKey}` (`nextKey` the following hash, or zero when
 * none follows). An address whose preimage the node has not recorded shows as the zero address.
 */
export const debugAccountRange = defineMethod({
  name: 'debug_accountRange',
  group: 'DEBUG',
  params: [
    required(blockParam, INVALID_BLOCK_PARAMS),
    raw,
    required(addressHash),
    required(count(INVALID_MAX_RESULTS_PARAMS)),
  ],
  order: [0, 2, 3, 1],
  async handler([p, _txIndex, start, max], { services }) {
    const header = resolveHeader(services.chain, p);
    if (!header || !services.chain.getBlock(header.hash())) return { addressMap: {} };
    const entries = await trieRange(services.world.newTrie(header.stateRoot), start, max + 1);
    let nextKey = `0x${'00'.repeat(32)}`;
    if (entries.length === max + 1) nextKey = bytesToHex((entries.pop() as { key: Uint8Array }).key);
    const map = new Map<string, string>();
    for (const e of entries) {
      const preimage = services.chain.getPreimage(e.key);
      map.set(bytesToHex(e.key), preimage ? bytesToHex(preimage) : ZERO_ADDRESS);
    }
    const addressMap: Record<string, string> = {};
    for (const k of javaHashMapOrder([...map.keys()])) addressMap[k] = map.get(k) as string;
    return { addressMap, nextKey };
  },
});

interface StorageRange {
  storage: Record<string, { key?: string; value: string }>;
  nextKey?: string;
  complete: boolean;
}

async function storageRange(
  state: {
    dumpStorageRange(
      a: Address,
      s: bigint,
      l: number,
    ): Promise<{ storage: Record<string, { value: string }>; nextKey: string | null }>;
    getAccount(a: Address): Promise<unknown>;
  },
  chain: Services['chain'],
  account: Address,
  start: Uint8Array,
  limit: number,
): Promise<StorageRange> {
  if (!(await state.getAccount(account))) return { storage: {}, complete: true };
  const dump = await state.dumpStorageRange(account, bytesToBigInt(start), limit);
  const storage: StorageRange['storage'] = {};
  for (const hashed of Object.keys(dump.storage).sort()) {
    const value = RLP.decode(
      hexToBytes((dump.storage[hashed] as { value: string }).value as `0x${string}`),
    ) as Uint8Array;
    const preimage = chain.getPreimage(hexToBytes(hashed as `0x${string}`));
    const valueHex = bytesToHex(setLengthLeft(value, 32));
    storage[hashed] = preimage
      ? { key: bytesToHex(setLengthLeft(preimage, 32)), value: valueHex }
      : { value: valueHex };
  }
  return dump.nextKey === null
    ? { storage, complete: true }
    : { storage, nextKey: setLengthHex(dump.nextKey), complete: false };
}

function setLengthHex(hex: string): string {
  return bytesToHex(setLengthLeft(hexToBytes(hex as `0x${string}`), 32));
}

/**
 * debug_storageRangeAt: up to `limit` storage entries of an account, from a slot hash on, as the state
 * was after transaction `txIndex` of the block (before the block's transactions when there is no such
 * transaction): `{storage: {slotHash: {key, value}}, nextKey?, complete}`.
 */
export const debugStorageRangeAt = defineMethod({
  name: 'debug_storageRangeAt',
  group: 'DEBUG',
  params: [
    required(blockParam, INVALID_BLOCK_PARAMS),
    required(txIndex),
    required(address, INVALID_ADDRESS_PARAMS),
    required(dataHash),
    required(count(INVALID_TRANSACTION_LIMIT_PARAMS)),
  ],
  async handler([p, index, account, start, limit], { services }) {
    const header = resolveHeader(services.chain, p);
    const block = header ? services.chain.getBlock(header.hash()) : undefined;
    if (!block) return { storage: {}, complete: true };
    const target = new Address(hexToBytes(account as `0x${string}`));
    const n = block.transactions.length;
    if (index < 0 || index >= n) {
      const parent = services.chain.getHeader(block.header.parentHash);
      if (!parent) return { storage: {}, complete: true };
      return storageRange(services.world.open(parent.stateRoot), services.chain, target, start, limit);
    }
    if (index === n - 1)
      return storageRange(services.world.open(block.header.stateRoot), services.chain, target, start, limit);
    return services.importer.processor.replay(block, {
      stopBeforeTx: index + 1,
      inspect: (vm: VM) =>
        storageRange(
          vm.stateManager as unknown as Parameters<typeof storageRange>[0],
          services.chain,
          target,
          start,
          limit,
        ),
    });
  },
});

export const debugStateMethods: RpcMethod[] = [debugAccountAt, debugAccountRange, debugStorageRangeAt];
