/**
 * Zeroed byte arrays of at most 4 KiB carved from shared 64 KiB buffers. A `new Uint8Array(n)` above
 * 64 bytes gets a backing store of its own outside the JavaScript heap (an allocation, zeroing and the
 * collector's tracking each, ~0.8 µs here); a view on a shared buffer costs ~0.05 µs. For the many
 * short-lived encodings a block's execution makes (trie nodes, receipt blooms): their `.buffer` is
 * the shared one, so they must not be transferred to another thread, detached, or read through
 * `.buffer` without their `byteOffset`. A buffer is freed once no view on it is left.
 */
const SLAB_BYTES = 64 * 1024;
const MAX_CARVED = 4096;

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;

export function slabBytes(length: number): Uint8Array {
  if (length > MAX_CARVED) return new Uint8Array(length);
  if (used + length > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const out = new Uint8Array(slab, used, length);
  used += length;
  return out;
}
