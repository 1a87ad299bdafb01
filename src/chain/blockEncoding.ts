/**
 * A block's transaction encodings, computed once per block: its transactions root, its stored body
 * and its transaction hashes are all taken from them, where the library would serialize every
 * transaction again for each (measured at ~1.5 s over the bench's 29,000-transaction chain).
 */
import type { Block } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { rlpLengthPrefix as lengthPrefix } from './rlpScan.js';
import { signedParts } from './signedParts.js';

/** By the block's transactions array (shared by the views of a block the processor builds). */
const cache = new WeakMap<TypedTransaction[], Uint8Array[]>();

/**
 * The network encodings of `block`'s transactions (`tx.serialize()`); each frozen transaction's hash
 * cache is filled from its encoding on the way, as `tx.hash()` would fill it.
 */
export function transactionEncodings(block: Block): Uint8Array[] {
  const txs = block.transactions;
  let out = cache.get(txs);
  if (out === undefined) {
    out = new Array(txs.length);
    for (let i = 0; i < txs.length; i++) {
      const tx = txs[i];
      const encoded = tx.serialize();
      out[i] = encoded;
      if (Object.isFrozen(tx)) {
        const c = (tx as unknown as { cache: { hash?: Uint8Array } }).cache;
        c.hash ??= keccak256(encoded);
      }
    }
    cache.set(txs, out);
  }
  return out;
}

/**
 * Records `encodings` (each `txs[i].serialize()`) as the encodings of a block holding `txs`: a block
 * builder has them already and the store then takes them instead of serializing every transaction
 * again.
 */
export function rememberTransactionEncodings(txs: TypedTransaction[], encodings: Uint8Array[]): void {
  cache.set(txs, encodings);
}

/**
 * The block's body RLP, `[transactions, uncles, withdrawals?]`, byte for byte what
 * `RLP.encode(block.raw().slice(1))` gives: a typed transaction is a string holding its encoding, a
 * legacy one its list (which is its encoding).
 */
export function encodeBody(block: Block): Uint8Array {
  const encodings = transactionEncodings(block);
  const items: Uint8Array[] = [];
  let txPayload = 0;
  for (let i = 0; i < encodings.length; i++) {
    const encoded = encodings[i];
    if (block.transactions[i].supports(Capability.EIP2718TypedTransaction)) {
      const prefix = lengthPrefix(encoded.length, 0x80);
      items.push(prefix);
      txPayload += prefix.length;
    }
    items.push(encoded);
    txPayload += encoded.length;
  }
  const rest: unknown[] = [block.uncleHeaders.map((h) => h.raw())];
  if (block.withdrawals) rest.push(block.withdrawals.map((w) => w.raw()));
  const restList = RLP.encode(rest as never);
  // The items after the transactions: the payload of the list `rest` encodes.
  const first = restList[0];
  const restPayload = restList.subarray(first <= 0xf7 ? 1 : 1 + (first - 0xf7));
  const txHeader = lengthPrefix(txPayload, 0xc0);
  const bodyPayload = txHeader.length + txPayload + restPayload.length;
  const bodyHeader = lengthPrefix(bodyPayload, 0xc0);
  const out = new Uint8Array(bodyHeader.length + bodyPayload);
  out.set(bodyHeader, 0);
  let at = bodyHeader.length;
  out.set(txHeader, at);
  at += txHeader.length;
  for (const item of items) {
    out.set(item, at);
    at += item.length;
  }
  out.set(restPayload, at);
  return out;
}

/**
 * The hash `tx`'s signature signs (`tx.getMessageToVerifySignature()`), from its encoding `encoded`
 * (`tx.serialize()`) without serializing the unsigned fields again (see signedParts).
 */
export function signingHash(tx: TypedTransaction, encoded: Uint8Array): Uint8Array {
  const replayProtected =
    !tx.supports(Capability.EIP2718TypedTransaction) && tx.supports(Capability.EIP155ReplayProtection);
  const parts = signedParts(encoded, replayProtected ? bigIntToUnpaddedBytes(tx.common.chainId()) : EMPTY);
  if (parts === undefined) throw new Error('transaction encoding has no signature');
  return parts.hash;
}

const EMPTY: Uint8Array = new Uint8Array(0);
