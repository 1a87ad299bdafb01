/**
 * Hashimoto-light and Keccak-f[1600] as a small WebAssembly module, assembled here from the
 * algorithm's definition (the permutation's builder is crypto/keccakWasm.ts', the emitter
 * util/wasmEmitter.ts'). JavaScript spends most of a nonce on typed-array bounds checks, 32-bit lane
 * halves and one cache miss after another; the module uses 64-bit lanes, 128-bit vectors for the FNV
 * rounds, and computes the dataset items of several nonces in lockstep so that their reads from the
 * cache overlap instead of waiting for each other.
 *
 * Memory (imported, shared between the threads that use one epoch): the light cache at byte 0
 * (64 bytes per item, so an item is one cache line), then scratch slots of SLOT_BYTES, one per thread.
 * A slot holds, at these byte offsets:
 *
 *   0     header hash (32 bytes), then the nonce being hashed (little-endian u64)
 *   64    up to MAX_BATCH nonces (little-endian u64)
 *   128   the Keccak state (25 little-endian u64 lanes), then at 328 the 24 round constants
 *   576   per nonce, 128 bytes: seed hash s (64) ‖ compressed mix (32) ‖ result (32)
 *   1600  per nonce, the 128-byte mix
 *   2624  the dataset items being computed (two per nonce, 64 bytes each)
 *   3648  their indices (u32), 3712 their parents' byte offsets (u32)
 *   3840  spare (256 bytes)
 */

import { keccakF, prepareFn } from '../../crypto/keccakWasm.js';
import { assembleModule, Fn, I32, op, simd, V128 } from '../../util/wasmEmitter.js';

export const MAX_BATCH = 8;
/**
 * Nonces the search hashes together: their dataset reads overlap. Four measured best on a 2-core
 * Xeon (about 0.37 ms per nonce, against 1.0 ms one at a time and 0.42 ms with eight:
 * `node bench/suites/ethash-seal.mjs --batches=1,4,8`).
 */
export const SEARCH_BATCH = 4;
export const SLOT_BYTES = 4096;
export const SLOT = {
  header: 0,
  nonces: 64,
  state: 128,
  out: 576,
  outStride: 128,
  mix: 1600,
  items: 2624,
  index: 3648,
  parent: 3712,
  /** Free space of a slot (256 bytes: cache generation's temporary item). */
  spare: 3840,
} as const;

const FNV_PRIME = 0x01000193;
const ACCESSES = 64;
const DATASET_PARENTS = 256;

/** Function indices of the module (the order `assemble` lists them in). */
const F_KECCAK = 0;
const F_SPONGE = 1;

/**
 * sponge(state, input, inLanes, rateLanes, output, outLanes): Keccak of `inLanes` 64-bit words (less
 * than one block: 5 for the 40-byte seed input, 8 for an item, 12 for the final 96 bytes) with the
 * original Keccak padding, at rate `rateLanes` (9 for keccak-512, 17 for keccak-256), squeezing
 * `outLanes` words. Input and output may overlap. `state` must have been prepared (its round constants).
 */
function spongeFn(): Fn {
  const f = new Fn(6);
  const [state, input, inLanes, rateLanes, output, outLanes] = [0, 1, 2, 3, 4, 5];
  const k = f.local(I32);
  for (let i = 0; i < 25; i++)
    f.get(state)
      .i64(0n)
      .mem(op.i64Store, 3, 8 * i);
  const lane = (base: number) => f.get(base).get(k).i32(3).emit(op.i32Shl, op.i32Add);
  f.loop(
    k,
    (g) => g.get(inLanes),
    () => {
      lane(state);
      lane(input).mem(op.i64Load, 3, 0);
      f.mem(op.i64Store, 3, 0);
    },
  );
  // Padding: 0x01 right after the message, 0x80 in the last byte of the block.
  f.get(state).get(inLanes).i32(3).emit(op.i32Shl, op.i32Add).set(k);
  f.get(k).get(k).mem(op.i64Load, 3, 0).i64(1n).emit(op.i64Xor).mem(op.i64Store, 3, 0);
  f.get(state).get(rateLanes).i32(1).emit(op.i32Sub).i32(3).emit(op.i32Shl, op.i32Add).set(k);
  f.get(k)
    .get(k)
    .mem(op.i64Load, 3, 0)
    .i64(1n << 63n)
    .emit(op.i64Xor)
    .mem(op.i64Store, 3, 0);
  f.get(state).call(F_KECCAK);
  f.loop(
    k,
    (g) => g.get(outLanes),
    () => {
      lane(output);
      lane(state).mem(op.i64Load, 3, 0);
      f.mem(op.i64Store, 3, 0);
    },
  );
  return f;
}

/**
 * hashimoto(items, rows, slot, count): hashimoto-light of the header hash in the slot with each of its
 * `count` nonces (1..MAX_BATCH), over a cache of `items` 64-byte items at byte 0 and a dataset of
 * `rows` 128-byte rows. Results go to the slot's per-nonce output.
 */
function hashimotoFn(): Fn {
  const f = new Fn(4);
  const [items, rows, slot, count] = [0, 1, 2, 3];
  const nb = f.local(I32); // nonce index
  const i = f.local(I32); // access round
  const j = f.local(I32); // parent round
  const t = f.local(I32); // item index within the batch
  const m = f.local(I32); // items in the batch (2 per nonce)
  const p = f.local(I32);
  const q = f.local(I32);
  const x = f.local(I32);
  const w = f.local(I32);
  const fnv = f.local(V128);
  const S = SLOT;

  f.i32(FNV_PRIME).v(simd.i32x4Splat).set(fnv);
  f.get(count).i32(1).emit(op.i32Shl).set(m);
  // p = slot + nb * 128 (the nonce's output and mix), x = slot + nb * 8.
  const perNonce = () => {
    f.get(slot).get(nb).i32(7).emit(op.i32Shl, op.i32Add).set(p);
    f.get(slot).get(nb).i32(3).emit(op.i32Shl, op.i32Add).set(x);
  };
  // Seed: s = keccak512(header ‖ nonce), the mix is s twice.
  f.loop(
    nb,
    (g) => g.get(count),
    () => {
      perNonce();
      f.get(slot)
        .get(x)
        .mem(op.i64Load, 3, S.nonces)
        .mem(op.i64Store, 3, S.header + 32);
      f.get(slot).i32(S.state).emit(op.i32Add);
      f.get(slot).i32(5).i32(9);
      f.get(p).i32(S.out).emit(op.i32Add);
      f.i32(8).call(F_SPONGE);
      for (let k = 0; k < 4; k++) {
        f.get(p)
          .get(p)
          .vmem(simd.load, S.out + 16 * k)
          .vmem(simd.store, S.mix + 16 * k);
        f.get(p)
          .get(p)
          .vmem(simd.load, S.out + 16 * k)
          .vmem(simd.store, S.mix + 64 + 16 * k);
      }
    },
  );
  f.loop(
    i,
    (g) => g.i32(ACCESSES),
    () => {
      // Each nonce's row: fnv(i ^ s[0], mix[i % 32]) % rows; its two items 2row, 2row + 1.
      f.loop(
        nb,
        (g) => g.get(count),
        () => {
          perNonce();
          f.get(i).get(p).mem(op.i32Load, 2, S.out).emit(op.i32Xor).i32(FNV_PRIME).emit(op.i32Mul);
          f.get(p).get(i).i32(31).emit(op.i32And).i32(2).emit(op.i32Shl, op.i32Add);
          f.mem(op.i32Load, 2, S.mix).emit(op.i32Xor).get(rows).emit(op.i32RemU);
          f.i32(1).emit(op.i32Shl).set(w);
          f.get(x).get(w).mem(op.i32Store, 2, S.index);
          f.get(x)
            .get(w)
            .i32(1)
            .emit(op.i32Add)
            .mem(op.i32Store, 2, S.index + 4);
        },
      );
      // Each item starts as keccak512 of its cache item with the index mixed into word 0.
      f.loop(
        t,
        (g) => g.get(m),
        () => {
          f.get(slot).get(t).i32(6).emit(op.i32Shl, op.i32Add).set(p);
          f.get(slot).get(t).i32(2).emit(op.i32Shl, op.i32Add).mem(op.i32Load, 2, S.index).set(w);
          f.get(w).get(items).emit(op.i32RemU).i32(6).emit(op.i32Shl).set(q);
          for (let k = 0; k < 4; k++)
            f.get(p)
              .get(q)
              .vmem(simd.load, 16 * k)
              .vmem(simd.store, S.items + 16 * k);
          f.get(p).get(p).mem(op.i32Load, 2, S.items).get(w).emit(op.i32Xor).mem(op.i32Store, 2, S.items);
          f.get(p).i32(S.items).emit(op.i32Add).set(q);
          f.get(slot).i32(S.state).emit(op.i32Add).set(x);
          f.get(x).get(q).i32(8).i32(9).get(q).i32(8).call(F_SPONGE);
        },
      );
      // 256 parent rounds over all items in lockstep: first every item's parent (their reads
      // overlap), then every item's FNV with its parent.
      f.loop(
        j,
        (g) => g.i32(DATASET_PARENTS),
        () => {
          f.get(j).i32(15).emit(op.i32And).i32(2).emit(op.i32Shl).set(w);
          f.loop(
            t,
            (g) => g.get(m),
            () => {
              f.get(slot).get(t).i32(2).emit(op.i32Shl, op.i32Add).set(x);
              f.get(slot).get(t).i32(6).emit(op.i32Shl, op.i32Add).get(w).emit(op.i32Add).set(p);
              f.get(x);
              f.get(x).mem(op.i32Load, 2, S.index).get(j).emit(op.i32Xor).i32(FNV_PRIME).emit(op.i32Mul);
              f.get(p).mem(op.i32Load, 2, S.items).emit(op.i32Xor).get(items).emit(op.i32RemU);
              f.i32(6).emit(op.i32Shl).mem(op.i32Store, 2, S.parent);
            },
          );
          f.loop(
            t,
            (g) => g.get(m),
            () => {
              f.get(slot).get(t).i32(6).emit(op.i32Shl, op.i32Add).set(p);
              f.get(slot).get(t).i32(2).emit(op.i32Shl, op.i32Add).mem(op.i32Load, 2, S.parent).set(q);
              for (let k = 0; k < 4; k++) {
                f.get(p);
                f.get(p)
                  .vmem(simd.load, S.items + 16 * k)
                  .get(fnv)
                  .v(simd.i32x4Mul);
                f.get(q)
                  .vmem(simd.load, 16 * k)
                  .v(simd.xor);
                f.vmem(simd.store, S.items + 16 * k);
              }
            },
          );
        },
      );
      f.loop(
        t,
        (g) => g.get(m),
        () => {
          f.get(slot).get(t).i32(6).emit(op.i32Shl, op.i32Add).i32(S.items).emit(op.i32Add).set(q);
          f.get(slot).i32(S.state).emit(op.i32Add);
          f.get(q).i32(8).i32(9).get(q).i32(8).call(F_SPONGE);
        },
      );
      // mix = fnv(mix, the nonce's two items).
      f.loop(
        nb,
        (g) => g.get(count),
        () => {
          perNonce();
          for (let k = 0; k < 8; k++) {
            f.get(p);
            f.get(p)
              .vmem(simd.load, S.mix + 16 * k)
              .get(fnv)
              .v(simd.i32x4Mul);
            f.get(p)
              .vmem(simd.load, S.items + 16 * k)
              .v(simd.xor);
            f.vmem(simd.store, S.mix + 16 * k);
          }
        },
      );
    },
  );
  // Compress each mix to 8 words, then result = keccak256(s ‖ compressed mix).
  f.loop(
    nb,
    (g) => g.get(count),
    () => {
      perNonce();
      for (let k = 0; k < 8; k++) {
        f.get(p);
        f.get(p).mem(op.i32Load, 2, S.mix + 16 * k);
        for (let e = 1; e < 4; e++) {
          f.i32(FNV_PRIME).emit(op.i32Mul);
          f.get(p)
            .mem(op.i32Load, 2, S.mix + 16 * k + 4 * e)
            .emit(op.i32Xor);
        }
        f.mem(op.i32Store, 2, S.out + 64 + 4 * k);
      }
      f.get(slot).i32(S.state).emit(op.i32Add);
      f.get(p).i32(S.out).emit(op.i32Add).i32(12).i32(17);
      f.get(p)
        .i32(S.out + 96)
        .emit(op.i32Add)
        .i32(4)
        .call(F_SPONGE);
    },
  );
  return f;
}

/** Scratch slots after the cache: one for the main thread, one per search thread. */
export const SLOTS = 8;

function assemble(): Uint8Array<ArrayBuffer> {
  // Keccak-f and the sponge at F_KECCAK and F_SPONGE; the memory is shared, up to 4 GiB.
  return assembleModule(
    [
      { fn: keccakF(), export: 'keccakf' },
      { fn: spongeFn(), export: 'sponge' },
      { fn: hashimotoFn(), export: 'hashimoto' },
      { fn: prepareFn(), export: 'prepare' },
    ],
    [0x03, 1, 0x80, 0x80, 0x04],
  );
}

export interface EthashKernel {
  keccakf(state: number): void;
  sponge(
    state: number,
    input: number,
    inLanes: number,
    rateLanes: number,
    output: number,
    outLanes: number,
  ): void;
  hashimoto(items: number, rows: number, slot: number, count: number): void;
}

let compiled: WebAssembly.Module | undefined;

/**
 * The module's functions over `memory` (compiled once per thread, instantiated per memory), with the
 * scratch slot at byte `slotAt` made ready for them (its Keccak round constants written).
 */
export function kernel(memory: WebAssembly.Memory, slotAt: number): EthashKernel {
  compiled ??= new WebAssembly.Module(assemble());
  const instance = new WebAssembly.Instance(compiled, { e: { m: memory } });
  const k = instance.exports as unknown as EthashKernel & { prepare(state: number): void };
  k.prepare(slotAt + SLOT.state);
  return k;
}

/** Byte offset of scratch slot `slot` in a memory whose cache has `cacheBytes`. */
export function slotOffset(cacheBytes: number, slot: number): number {
  return Math.ceil(cacheBytes / SLOT_BYTES) * SLOT_BYTES + slot * SLOT_BYTES;
}

/** A shared memory for a light cache of `cacheBytes` and its scratch slots. */
export function epochMemory(cacheBytes: number): WebAssembly.Memory {
  const pages = Math.ceil(slotOffset(cacheBytes, SLOTS) / 65536);
  return new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
}
