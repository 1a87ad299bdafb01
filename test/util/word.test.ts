/**
 * A bigint as a 32-byte EVM word: the library's padded conversion for every width, and the low 256 bits
 * beyond; and as a storage value's bytes without leading zeros, the library's unpadded conversion.
 */
import { bigIntToBytes, bigIntToUnpaddedBytes, setLengthLeft } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { unpaddedWordBytes, wordBytes } from '../../src/util/word.js';

const values = [0n, 1n, 0xfn, 0x10n, 0xffn, 0x100n, (1n << 64n) - 1n, 1n << 64n, (1n << 255n) + 12345n];
for (let bits = 1; bits <= 256; bits += 7) values.push((1n << BigInt(bits)) - 1n, 1n << BigInt(bits - 1));
values.push((1n << 256n) - 1n);

describe('wordBytes', () => {
  it('matches the padded generic conversion for values of every width below 2^256', () => {
    for (const v of values) expect(wordBytes(v), v.toString(16)).toEqual(setLengthLeft(bigIntToBytes(v), 32));
  });

  it('keeps the low 256 bits of larger and negative values', () => {
    expect(wordBytes((1n << 256n) + 5n)).toEqual(wordBytes(5n));
    expect(wordBytes(-1n)).toEqual(new Uint8Array(32).fill(0xff));
  });
});

describe('unpaddedWordBytes', () => {
  it('matches the unpadded generic conversion for values of every width below 2^256, zero as no bytes', () => {
    for (const v of values) expect(unpaddedWordBytes(v), v.toString(16)).toEqual(bigIntToUnpaddedBytes(v));
    expect(unpaddedWordBytes(0n).length).toBe(0);
  });
});
