/**
 * Transactions as Besu writes them (`TransactionCompleteResult`): every type from legacy to EIP-7702,
 * members in Besu's order, absent members left out rather than set to null (except `to`, which is null
 * for contract creations, and the block fields of a pending transaction).
 */
import { RLP } from '@ethereumjs/rlp';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import { effectiveGasPrice, feeMarketPrice } from '../../chain/fees.js';
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

export function bytesToQuantity(b: Uint8Array): string {
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

type Field = Uint8Array;
type RlpValue = Uint8Array | RlpValue[];

function toBigInt(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(bytes(b));
}

/**
 * An included transaction formatted straight from its network encoding (a legacy transaction's RLP
 * list, a typed one's `type ‖ payload`), as `formatTransaction` formats the library's object: the same
 * members in the same order, without building that object (which costs far more than the answer).
 * Undefined for a type it does not know.
 */
export function formatEncodedTransaction(
  encoding: Uint8Array,
  hash: Uint8Array,
  sender: Uint8Array,
  location: TxLocationHex,
): TxJson | undefined {
  const first = encoding[0] as number;
  const type = first >= 0xc0 ? 0 : first;
  if (type > 4) return undefined;
  const f = RLP.decode(type === 0 ? encoding : encoding.subarray(1)) as unknown as RlpValue[];
  const out: TxJson = {};
  let nonce: Field;
  let gasLimit: Field;
  let to: Field;
  let value: Field;
  let data: Field;
  let v: Field;
  let r: Field;
  let s: Field;
  let chainId: bigint | undefined;
  let gasPrice: bigint;
  let tip: Field | undefined;
  let maxFee: Field | undefined;
  let blobFee: Field | undefined;
  let blobHashes: Field[] | undefined;
  let authorizations: Field[][] | undefined;
  if (type === 0) {
    if (f.length !== 9) return undefined;
    [nonce, , gasLimit, to, value, data, v, r, s] = f as Field[] as [
      Field,
      Field,
      Field,
      Field,
      Field,
      Field,
      Field,
      Field,
      Field,
    ];
    gasPrice = toBigInt(f[1] as Field);
    chainId = legacyChainId(toBigInt(v));
  } else {
    out.accessList = accessListJson(f[type === 1 ? 7 : 8] as unknown as [Uint8Array, Uint8Array[]][]);
    chainId = toBigInt(f[0] as Field);
    nonce = f[1] as Field;
    if (type === 1) {
      if (f.length !== 11) return undefined;
      gasPrice = toBigInt(f[2] as Field);
      [gasLimit, to, value, data] = f.slice(3, 7) as [Field, Field, Field, Field];
      [v, r, s] = f.slice(8) as [Field, Field, Field];
    } else {
      if (f.length !== (type === 2 ? 12 : type === 3 ? 14 : 13)) return undefined;
      tip = f[2] as Field;
      maxFee = f[3] as Field;
      [gasLimit, to, value, data] = f.slice(4, 8) as [Field, Field, Field, Field];
      if (type === 3) {
        blobFee = f[9] as Field;
        blobHashes = f[10] as Field[];
      } else if (type === 4) authorizations = f[9] as Field[][];
      [v, r, s] = f.slice(f.length - 3) as [Field, Field, Field];
      gasPrice = feeMarketPrice(toBigInt(maxFee), toBigInt(tip), location.baseFeePerGas);
    }
  }
  out.blockHash = location.blockHash;
  out.blockNumber = location.blockNumber;
  out.blockTimestamp = location.blockTimestamp;
  if (chainId !== undefined) out.chainId = quantity(chainId);
  out.from = bytes(sender);
  out.gas = bytesToQuantity(gasLimit);
  out.gasPrice = quantity(gasPrice);
  if (tip !== undefined && maxFee !== undefined) {
    out.maxPriorityFeePerGas = bytesToQuantity(tip);
    out.maxFeePerGas = bytesToQuantity(maxFee);
  }
  if (blobFee !== undefined) out.maxFeePerBlobGas = bytesToQuantity(blobFee);
  out.hash = bytes(hash);
  out.input = bytes(data);
  out.nonce = bytesToQuantity(nonce);
  out.to = to.length === 0 ? null : bytes(to);
  out.transactionIndex = quantity(location.index);
  out.type = quantity(type);
  out.value = bytesToQuantity(value);
  if (type !== 0) out.yParity = bytesToQuantity(v);
  out.v = bytesToQuantity(v);
  out.r = bytesToQuantity(r);
  out.s = bytesToQuantity(s);
  if (blobHashes !== undefined) out.blobVersionedHashes = blobHashes.map((h) => bytes(h));
  if (authorizations !== undefined) out.authorizationList = authorizationListJson(authorizations);
  return out;
}
