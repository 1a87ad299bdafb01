/**
 * What a transaction's signature covers, read straight from its canonical encoding: the unsigned
 * fields are the encoding's items before the signature, byte for byte, so they need not be
 * serialized again. A typed transaction signs `type ‖ rlp(fields before yParity, r, s)`; a legacy one
 * `rlp(its first six fields)`, followed by `chainId, 0, 0` when it is replay-protected (EIP-155).
 * Used by block import (on the main thread) and by the pool's recovery thread.
 */
import { keccak256 } from '../crypto/index.js';
import { rlpItemAt, rlpLengthPrefix, rlpListItems } from './rlpScan.js';

export interface SignedParts {
  /** keccak-256 of the signing payload. */
  hash: Uint8Array;
  /** The signature's r and s, big-endian, minimal. */
  r: Uint8Array;
  s: Uint8Array;
}

/**
 * The signing hash and r, s of the transaction encoded as `raw`; `chainId` (big-endian, minimal) only
 * for an EIP-155 legacy transaction, empty otherwise. Undefined when `raw` is not a signed transaction
 * of a known shape (r or s over 32 bytes, a legacy list of other than nine items, malformed RLP).
 */
export function signedParts(raw: Uint8Array, chainId: Uint8Array): SignedParts | undefined {
  const typed = (raw[0] as number) < 0xc0;
  let items: ReturnType<typeof rlpListItems>;
  try {
    items = rlpListItems(raw, rlpItemAt(raw, typed ? 1 : 0));
  } catch {
    return undefined;
  }
  const n = items.length;
  if (n < 4 || (!typed && n !== 9)) return undefined;
  const r = items[n - 2] as (typeof items)[number];
  const s = items[n - 1] as (typeof items)[number];
  if (r.end - r.payload > 32 || s.end - s.payload > 32) return undefined;
  const first = items[0] as (typeof items)[number];
  const fields = raw.subarray(first.start, (items[typed ? n - 4 : 5] as (typeof items)[number]).end);
  // EIP-155 suffix: rlp(chainId), then two empty strings.
  const idPrefix = chainId.length === 1 && (chainId[0] as number) < 0x80 ? 0 : 1;
  const suffixLength = chainId.length === 0 ? 0 : idPrefix + chainId.length + 2;
  const header = rlpLengthPrefix(fields.length + suffixLength, 0xc0);
  const lead = typed ? 1 : 0;
  const payload = new Uint8Array(lead + header.length + fields.length + suffixLength);
  if (typed) payload[0] = raw[0] as number;
  payload.set(header, lead);
  let at = lead + header.length;
  payload.set(fields, at);
  at += fields.length;
  if (suffixLength > 0) {
    if (idPrefix === 1) payload[at++] = 0x80 + chainId.length;
    payload.set(chainId, at);
    at += chainId.length;
    payload[at] = 0x80;
    payload[at + 1] = 0x80;
  }
  return { hash: keccak256(payload), r: raw.subarray(r.payload, r.end), s: raw.subarray(s.payload, s.end) };
}
