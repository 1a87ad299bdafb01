/**
 * eth_getProof (EIP-1186): the account's path in the state trie and each requested slot's path in its
 * storage trie, walked synchronously in the archive trie at the block's state root (`WorldState.at`).
 */
import { bytesToBigInt, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { INVALID_STORAGE_KEYS_PARAMS, RpcError } from '../../errors.js';
import { bytes, hexToBytes, padded, quantity } from '../../format/hex.js';
import { quantity as quantityParam } from '../../params.js';
import type { RpcMethod } from '../types.js';
import { addressParam, stateHeaderAt } from './state.js';

function storageKeys(value: unknown): bigint[] {
  if (!Array.isArray(value)) throw new RpcError(INVALID_STORAGE_KEYS_PARAMS);
  return value.map((k) => quantityParam(k, INVALID_STORAGE_KEYS_PARAMS));
}

/** A slot as the clients print it back: its minimal big-endian bytes (`0x0347`), `0x0` for slot zero. */
function slotJson(slot: bigint): string {
  if (slot === 0n) return '0x0';
  const hex = slot.toString(16);
  return hex.length & 1 ? `0x0${hex}` : `0x${hex}`;
}

function proofJson(nodes: Uint8Array[]): string[] {
  return nodes.map(bytes);
}

export const ethGetProof: RpcMethod = {
  name: 'eth_getProof',
  group: 'ETH',
  handler(params, { services }) {
    const header = stateHeaderAt(services, params, 2);
    const who = addressParam(params, 0);
    const slots = storageKeys(params[1]);
    if (!header) return null;
    const keys = slots.map((slot) => hexToBytes(padded(slot)));
    const { account, accountProof, storage } = services.world.at(header.stateRoot).proof(who.bytes, keys);
    return {
      accountProof: proofJson(accountProof),
      address: bytes(who.bytes),
      balance: quantity(account?.balance ?? 0n),
      codeHash: bytes(account?.codeHash ?? KECCAK256_NULL),
      nonce: quantity(account?.nonce ?? 0n),
      storageHash: bytes(account?.storageRoot ?? KECCAK256_RLP),
      storageProof: storage.map((s, i) => ({
        key: slotJson(slots[i] as bigint),
        value: quantity(bytesToBigInt(s.value)),
        proof: proofJson(s.proof),
      })),
    };
  },
};
