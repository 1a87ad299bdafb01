/**
 * eth_getProof (EIP-1186): the account's path in the state trie and each requested slot's path in its
 * storage trie, walked synchronously in the archive trie at the block's state root (`WorldState.at`).
 */
import { bytesToBigInt, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util';
import { INVALID_STORAGE_KEYS_PARAMS, RpcError } from '../../errors.js';
import { bytes, hexToBytes, padded, quantity } from '../../format/hex.js';
import { quantity as quantityParam } from '../../params.js';
import { deferred, defineMethod, type ParamSpec } from '../define.js';
import { accountAddress, stateBlock, stateHeader } from './state.js';

/** The storage keys: a list of quantities (`Invalid storage keys params` otherwise). */
const storageKeys: ParamSpec<bigint[]> = {
  decode(params, index) {
    const value = params[index];
    if (!Array.isArray(value)) throw new RpcError(INVALID_STORAGE_KEYS_PARAMS);
    return value.map((k) => quantityParam(k, INVALID_STORAGE_KEYS_PARAMS));
  },
};

/** A slot as the clients print it back: its minimal big-endian bytes (`0x0347`), `0x0` for slot zero. */
function slotJson(slot: bigint): string {
  if (slot === 0n) return '0x0';
  const hex = slot.toString(16);
  return hex.length & 1 ? `0x0${hex}` : `0x${hex}`;
}

function proofJson(nodes: Uint8Array[]): string[] {
  return nodes.map(bytes);
}

export const ethGetProof = defineMethod({
  name: 'eth_getProof',
  group: 'ETH',
  // The block is looked up first, then the address and the keys are read (Besu's order).
  params: [accountAddress, deferred(storageKeys), stateBlock()],
  order: [2, 0, 1],
  handler([who, keys, block], { services }) {
    const header = stateHeader(services, block);
    const account = hexToBytes(who());
    const slots = keys();
    if (!header) return null;
    const keyBytes = slots.map((slot) => hexToBytes(padded(slot)));
    const {
      account: found,
      accountProof,
      storage,
    } = services.world.at(header.stateRoot).proof(account, keyBytes);
    return {
      accountProof: proofJson(accountProof),
      address: bytes(account),
      balance: quantity(found?.balance ?? 0n),
      codeHash: bytes(found?.codeHash ?? KECCAK256_NULL),
      nonce: quantity(found?.nonce ?? 0n),
      storageHash: bytes(found?.storageRoot ?? KECCAK256_RLP),
      storageProof: storage.map((s, i) => ({
        key: slotJson(slots[i] as bigint),
        value: quantity(bytesToBigInt(s.value)),
        proof: proofJson(s.proof),
      })),
    };
  },
});
