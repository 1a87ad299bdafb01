/**
 * The 2048-bit logs bloom's rule (Yellow Paper M3:2048): a log's address and each of its topics set
 * three bits, one for each of the first three big-endian 16-bit words of the item's keccak-256, taken
 * modulo 2048; bit b lives in byte 255 - (b >> 3) of the bloom, under mask 1 << (b & 7).
 */
import { keccak256 } from '../crypto/index.js';

/** The item's three (byte index, mask) pairs, in that order, for testing a bloom. */
export function logBloomBits(item: Uint8Array): Uint16Array {
  const h = keccak256(item);
  const out = new Uint16Array(6);
  for (let i = 0; i < 3; i++) {
    const bit = bitOf(h, i);
    out[2 * i] = 255 - (bit >> 3);
    out[2 * i + 1] = 1 << (bit & 7);
  }
  return out;
}

/** Sets the item's three bits in `bloom` (256 bytes), as the library's `Bloom.add` does. */
export function addToLogBloom(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item);
  for (let i = 0; i < 3; i++) {
    const bit = bitOf(h, i);
    bloom[255 - (bit >> 3)] = (bloom[255 - (bit >> 3)] as number) | (1 << (bit & 7));
  }
}

/** Bit `i` (0–2) of the item whose keccak-256 is `h`. */
function bitOf(h: Uint8Array, i: number): number {
  return (((h[2 * i] as number) << 8) | (h[2 * i + 1] as number)) & 2047;
}
