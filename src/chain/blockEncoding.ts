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
import { rlpItemAt, rlpListItems } from './rlpScan.js';

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

function lengthPrefix(length: number, base: number): Uint8Array {
  if (length < 56) return Uint8Array.of(base + length);
  const bytes: number[] = [];
  for (let l = length; l > 0; l = Math.floor(l / 256)) bytes.unshift(l % 256);
  return Uint8Array.from([base + 55 + bytes.length, ...bytes]);
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
 * (`tx.serialize()`) without serializing the unsigned fields again: they are the encoding's items
 * before the signature, byte for byte, since both come from the same field encoder. A typed
 * transaction signs `type ‖ rlp(fields without yParity, r, s)`; a legacy one `rlp(the six fields)`,
 * followed by `chainId, 0, 0` when it is replay-protected (EIP-155).
 */
export function signingHash(tx: TypedTransaction, encoded: Uint8Array): Uint8Array {
  const typed = tx.supports(Capability.EIP2718TypedTransaction);
  const body = typed ? encoded.subarray(1) : encoded;
  const items = rlpListItems(body, rlpItemAt(body, 0));
  if (items.length < 4) throw new Error('transaction encoding has no signature');
  let tail = EMPTY;
  let kept = items.length - 3;
  if (!typed) {
    kept = 6;
    if (tx.supports(Capability.EIP155ReplayProtection))
      tail = concat([RLP.encode(bigIntToUnpaddedBytes(tx.common.chainId())), RLP_EMPTY, RLP_EMPTY]);
  }
  const fields = body.subarray(items[0].start, items[kept - 1].end);
  const header = lengthPrefix(fields.length + tail.length, 0xc0);
  const prefix = typed ? 1 : 0;
  const message = new Uint8Array(prefix + header.length + fields.length + tail.length);
  if (typed) message[0] = encoded[0];
  message.set(header, prefix);
  message.set(fields, prefix + header.length);
  message.set(tail, prefix + header.length + fields.length);
  return keccak256(message);
}

const EMPTY: Uint8Array = new Uint8Array(0);
const RLP_EMPTY = Uint8Array.of(0x80);

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
