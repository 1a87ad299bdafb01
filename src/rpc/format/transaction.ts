/**
 * Transactions as Besu writes them (`TransactionCompleteResult`): every type from legacy to EIP-7702,
 * members in Besu's order, absent members left out rather than set to null (except `to`, which is null
 * for contract creations, and the block fields of a pending transaction).
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import { effectiveGasPrice } from '../../chain/fees.js';
import { bytes, quantity } from './hex.js';

/** Where an included transaction sits; block values already hex-encoded, shared by every tx of a block. */
export interface TxLocationHex {
  blockHash: string;
  blockNumber: string;
  blockTimestamp: string;
  /** Base fee of the including block (undefined before London): fixes the effective gas price. */
  baseFeePerGas: bigint | undefined;
  index: number;
}

export type TxJson = Record<string, unknown>;

/** The chain id a legacy transaction was signed for (EIP-155), if any. */
export function legacyChainId(v: bigint): bigint | undefined {
  return v >= 35n ? (v - 35n) >> 1n : undefined;
}

function accessListJson(list: readonly (readonly [Uint8Array, readonly Uint8Array[]])[]): unknown[] {
  const out = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const [addr, keys] = list[i] as readonly [Uint8Array, readonly Uint8Array[]];
    const storageKeys = new Array(keys.length);
    for (let k = 0; k < keys.length; k++) storageKeys[k] = bytes(keys[k] as Uint8Array);
    out[i] = { address: bytes(addr), storageKeys };
  }
  return out;
}

function bytesToQuantity(b: Uint8Array): string {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  if (i === b.length) return '0x0';
  const hex = bytes(b.subarray(i));
  return hex.charCodeAt(2) === 48 /* '0' */ ? `0x${hex.slice(3)}` : hex;
}

function authorizationListJson(list: readonly (readonly Uint8Array[])[]): unknown[] {
  const out = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const [chainId, addr, nonce, yParity, r, s] = list[i] as Uint8Array[];
    out[i] = {
      chainId: bytesToQuantity(chainId as Uint8Array),
      address: bytes(addr as Uint8Array),
      nonce: bytesToQuantity(nonce as Uint8Array),
      yParity: bytesToQuantity(yParity as Uint8Array),
      r: bytesToQuantity(r as Uint8Array),
      s: bytesToQuantity(s as Uint8Array),
    };
  }
  return out;
}

/**
 * One transaction. `location` is absent for a pending transaction: its block members are null and its
 * `gasPrice` is its fee cap.
 */
export function formatTransaction(tx: TypedTransaction, sender: Address, location?: TxLocationHex): TxJson {
  const type = tx.type;
  const typed = type !== 0;
  const out: TxJson = {};
  if (typed)
    out.accessList = accessListJson(
      (tx as unknown as { accessList: [Uint8Array, Uint8Array[]][] }).accessList,
    );
  out.blockHash = location ? location.blockHash : null;
  out.blockNumber = location ? location.blockNumber : null;
  if (location) out.blockTimestamp = location.blockTimestamp;
  const v = tx.v ?? 0n;
  const chainId = typed ? (tx as unknown as { chainId: bigint }).chainId : legacyChainId(v);
  if (chainId !== undefined) out.chainId = quantity(chainId);
  out.from = bytes(sender.bytes);
  out.gas = quantity(tx.gasLimit);
  out.gasPrice = quantity(effectiveGasPrice(tx, location ? location.baseFeePerGas : undefined));
  if (type >= 2) {
    const t = tx as unknown as { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
    out.maxPriorityFeePerGas = quantity(t.maxPriorityFeePerGas);
    out.maxFeePerGas = quantity(t.maxFeePerGas);
  }
  if (type === 3)
    out.maxFeePerBlobGas = quantity((tx as unknown as { maxFeePerBlobGas: bigint }).maxFeePerBlobGas);
  out.hash = bytes(tx.hash());
  out.input = bytes(tx.data);
  out.nonce = quantity(tx.nonce);
  out.to = tx.to ? bytes(tx.to.bytes) : null;
  out.transactionIndex = location ? quantity(location.index) : null;
  out.type = quantity(type);
  out.value = quantity(tx.value);
  if (typed) out.yParity = quantity(v);
  out.v = quantity(v);
  out.r = quantity(tx.r ?? 0n);
  out.s = quantity(tx.s ?? 0n);
  if (type === 3) {
    // @ethereumjs keeps these as hex strings already.
    const hashes = (tx as unknown as { blobVersionedHashes: readonly string[] }).blobVersionedHashes;
    out.blobVersionedHashes = hashes.map((h) => h.toLowerCase());
  }
  if (type === 4) {
    out.authorizationList = authorizationListJson(
      (tx as unknown as { authorizationList: Uint8Array[][] }).authorizationList,
    );
  }
  return out;
}
