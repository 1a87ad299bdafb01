const WORD_RANGE = 1n << 256n;

/**
 * A 256-bit EVM word as its 32 big-endian bytes (the low 256 bits of any other value), from the
 * bigint's hex digits: one native conversion and a pass over its characters. The generic conversion
 * goes through a hex string, a byte array and a second padded copy, and 64-bit steps allocate a bigint
 * per step; a cost paid per log topic of every transaction a block executes.
 */
export function wordBytes(value: bigint): Uint8Array {
  const v = value >= 0n && value < WORD_RANGE ? value : BigInt.asUintN(256, value);
  const out = new Uint8Array(32);
  if (v === 0n) return out;
  const hex = v.toString(16);
  writeDigits(out, 32 - ((hex.length + 1) >> 1), hex);
  return out;
}

/**
 * A value 0 ≤ value < 2^256 as its big-endian bytes without leading zeros (zero is no bytes), as the
 * state keeps slot values and an account's leaf carries its nonce and balance, by the same pass over
 * the bigint's hex digits.
 */
export function unpaddedWordBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  const hex = value.toString(16);
  const out = new Uint8Array((hex.length + 1) >> 1);
  writeDigits(out, 0, hex);
  return out;
}

/** Writes the bytes of the lowercase hex digits `hex` (an odd count starts with a half byte) at `at`. */
function writeDigits(out: Uint8Array, at: number, hex: string): void {
  let i = 0;
  if ((hex.length & 1) === 1) {
    out[at++] = nibble(hex.charCodeAt(0));
    i = 1;
  }
  for (; i < hex.length; i += 2) out[at++] = (nibble(hex.charCodeAt(i)) << 4) | nibble(hex.charCodeAt(i + 1));
}

/** The value of a lowercase hex digit's character code ('0'-'9', 'a'-'f'). */
function nibble(code: number): number {
  return (code & 0xf) + (code >> 6) * 9;
}
