/**
 * Zeroed byte arrays carved from shared buffers, as Buffer's pool does. A `new Uint8Array(n)` above
 * 64 bytes gets a backing store of its own outside the JavaScript heap (an allocation, zeroing and the
 * collector's tracking each, ~0.8 µs here); a smaller one lives inside the heap, and the first read of
 * its `.buffer` (every hex or latin1 key built from it reads one) moves it out at a cost larger than
 * most uses of it; a view on a shared buffer costs ~0.05 µs. Views are eight-byte aligned. Their
 * `.buffer` is the shared one, so they must not be transferred to another thread, detached, or read
 * through `.buffer` without their `byteOffset`. A buffer is freed once no view on it is left, so a
 * slab's size bounds what one long-lived view can keep alive.
 */
export class ByteSlab {
  private slab: ArrayBuffer;
  private used = 0;

  /** Buffers of `size` bytes; arrays above `maxCarved` bytes get their own. */
  constructor(
    private readonly size: number,
    private readonly maxCarved: number,
  ) {
    this.slab = new ArrayBuffer(size);
  }

  bytes(length: number): Uint8Array {
    if (length > this.maxCarved) return new Uint8Array(length);
    if (this.used + length > this.size) {
      this.slab = new ArrayBuffer(this.size);
      this.used = 0;
    }
    const out = new Uint8Array(this.slab, this.used, length);
    this.used = (this.used + length + 7) & ~7;
    return out;
  }
}

/** For the many short-lived encodings a block's execution makes (trie nodes, receipt blooms). */
const executionSlab = new ByteSlab(64 * 1024, 4096);

/** A zeroed array of `length` bytes from the execution slab (see ByteSlab). */
export function slabBytes(length: number): Uint8Array {
  return executionSlab.bytes(length);
}
