/**
 * Receipts as stored: the consensus encoding (typed envelope for typed transactions), one list per
 * block. The same bytes serve debug_getRawReceipts and the receipts root.
 */
import { RLP } from '@ethereumjs/rlp';
import type { TypedTransaction } from '@ethereumjs/tx';
import { type Address, bigIntToUnpaddedBytes, bytesToBigInt, concatBytes } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { rlpBytesList } from '../util/rlpWrite.js';

export type LogTuple = [address: Uint8Array, topics: Uint8Array[], data: Uint8Array];

export interface StoredReceipt {
  type: number;
  /** 1 success, 0 failure; absent before Byzantium, where `root` is set instead. */
  status?: 0 | 1;
  root?: Uint8Array;
  cumulativeGasUsed: bigint;
  bloom: Uint8Array;
  logs: LogTuple[];
}

/** Address of a contract created by `sender` with this nonce (CREATE: keccak of the RLP pair, last 20 bytes). */
export function createdContractAddress(sender: Address, nonce: bigint): Uint8Array {
  return keccak256(RLP.encode([sender.bytes, bigIntToUnpaddedBytes(nonce)])).subarray(12);
}

/** The contract a receipt's transaction created, or undefined when it called an existing account. */
export function contractAddressOf(tx: TypedTransaction, sender: Address): Uint8Array | undefined {
  return tx.to ? undefined : createdContractAddress(sender, tx.nonce);
}

export function decodeReceipt(raw: Uint8Array): StoredReceipt {
  let type = 0;
  let body = raw;
  if (raw[0] < 0x80) {
    type = raw[0];
    body = raw.subarray(1);
  }
  const [statusOrRoot, gas, bloom, logs] = RLP.decode(body) as unknown as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
    LogTuple[],
  ];
  const r: StoredReceipt = { type, cumulativeGasUsed: bytesToBigInt(gas), bloom, logs };
  if (statusOrRoot.length === 32) r.root = statusOrRoot;
  else r.status = statusOrRoot.length === 0 || statusOrRoot[0] === 0 ? 0 : 1;
  return r;
}

export function encodeReceiptList(encoded: Uint8Array[]): Uint8Array {
  return rlpBytesList(encoded);
}

export function decodeReceiptList(raw: Uint8Array): Uint8Array[] {
  return RLP.decode(raw) as Uint8Array[];
}

export function locationValue(blockHash: Uint8Array, index: number): Uint8Array {
  const idx = new Uint8Array(4);
  new DataView(idx.buffer).setUint32(0, index);
  return concatBytes(blockHash, idx);
}
