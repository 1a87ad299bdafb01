/**
 * RLP written straight into a buffer sized beforehand: the encoded sizes of strings and lists, and
 * writers for their headers and for strings. The generic encoder builds every nested list and copies
 * it once per level; with sizes known first, each byte is written once.
 */

/** Bytes of the big-endian length in a long-form header (lengths above 55). */
function lengthOfLength(len: number): number {
  let n = 0;
  for (let v = len; v > 0; v = Math.floor(v / 256)) n++;
  return n;
}

/** Encoded size of the byte string `b`. */
export function rlpStringSize(b: Uint8Array): number {
  return b.length === 1 && (b[0] as number) < 0x80 ? 1 : rlpStringSizeOf(b.length);
}

/** Encoded size of a byte string of `length` bytes, any but a single byte below 0x80. */
export function rlpStringSizeOf(length: number): number {
  return length <= 55 ? 1 + length : 1 + lengthOfLength(length) + length;
}

/** Encoded size of a list whose items take `payload` bytes. */
export function rlpListSize(payload: number): number {
  return payload <= 55 ? 1 + payload : 1 + lengthOfLength(payload) + payload;
}

/**
 * Writes the header of a list (`list`) or string of `len` payload bytes at `at`; returns the offset
 * after it.
 */
export function writeRlpHeader(out: Uint8Array, at: number, len: number, list: boolean): number {
  if (len <= 55) {
    out[at] = (list ? 0xc0 : 0x80) + len;
    return at + 1;
  }
  const n = lengthOfLength(len);
  out[at] = (list ? 0xf7 : 0xb7) + n;
  for (let i = n, v = len; i > 0; i--, v = Math.floor(v / 256)) out[at + i] = v % 256;
  return at + 1 + n;
}

/** Writes `b` as an RLP string at `at`; returns the offset after it. */
export function writeRlpString(out: Uint8Array, at: number, b: Uint8Array): number {
  if (b.length === 1 && (b[0] as number) < 0x80) {
    out[at] = b[0] as number;
    return at + 1;
  }
  const from = writeRlpHeader(out, at, b.length, false);
  out.set(b, from);
  return from + b.length;
}

/**
 * The RLP list of the byte strings `items` (what `RLP.encode(items)` gives), sized first and written
 * once: the generic encoder copies every item twice and allocates per item.
 */
export function rlpBytesList(items: readonly Uint8Array[]): Uint8Array {
  let payload = 0;
  for (const item of items) payload += rlpStringSize(item);
  const out = new Uint8Array(rlpListSize(payload));
  let at = writeRlpHeader(out, 0, payload, true);
  for (const item of items) at = writeRlpString(out, at, item);
  return out;
}
