/**
 * Keccak-f[1600] and Keccak-256 in WebAssembly, assembled from the permutation's definition. The
 * permutation's function builders serve the Ethash kernel too. `keccak256` hashes with one call into
 * the module: the native sponge binding needs four calls per hash, whose overhead was ~1.4 of the
 * ~1.9 µs a short input cost (a block's state, receipts and transaction tries hash several per
 * transaction).
 *
 * Memory of the Keccak-256 module (its own, grown on demand): the state at byte 0 (25 little-endian
 * u64 lanes) with the 24 round constants behind it at 200, the digest at OUT_AT, the padded input
 * from INPUT_AT.
 */
import { assembleModule, Fn, I32, I64, op } from '../util/wasmEmitter.js';

/** Where the round constants sit, from the start of a Keccak state. */
export const ROUND_CONSTANTS_AT = 200;

/** Rotation offsets of ρ, indexed x + 5y, from the walk (x, y) → (y, 2x + 3y) over t = 0..23. */
function rotationOffsets(): number[] {
  const r = new Array<number>(25).fill(0);
  let x = 1;
  let y = 0;
  for (let t = 0; t < 24; t++) {
    r[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64;
    [x, y] = [y, (2 * x + 3 * y) % 5];
  }
  return r;
}

/** Round constants of ι from the degree-8 LFSR x^8 + x^6 + x^5 + x^4 + 1. */
function roundConstants(): bigint[] {
  const rcBit = (t: number): number => {
    let r = 1;
    for (let i = 0; i < t % 255; i++) {
      r <<= 1;
      if (r & 0x100) r ^= 0x171;
    }
    return r & 1;
  };
  const out: bigint[] = [];
  for (let round = 0; round < 24; round++) {
    let rc = 0n;
    for (let j = 0; j <= 6; j++) if (rcBit(j + 7 * round)) rc |= 1n << BigInt(2 ** j - 1);
    out.push(rc);
  }
  return out;
}

/**
 * keccakf(state): the permutation in place over 25 lanes at `state`, a loop over the 24 rounds with
 * each round's constant read from behind the state (prepare). Unrolling all rounds measured twice as
 * slow: the code no longer fits the instruction cache.
 */
export function keccakF(): Fn {
  const f = new Fn(1);
  const ptr = 0;
  const a = Array.from({ length: 25 }, () => f.local(I64));
  const b = Array.from({ length: 25 }, () => f.local(I64));
  const c = Array.from({ length: 5 }, () => f.local(I64));
  const d = Array.from({ length: 5 }, () => f.local(I64));
  const round = f.local(I32);
  const rot = rotationOffsets();
  for (let i = 0; i < 25; i++)
    f.get(ptr)
      .mem(op.i64Load, 3, 8 * i)
      .set(a[i] as number);
  f.loop(
    round,
    (g) => g.i32(24),
    () => {
      // θ: column parities, then each lane takes its neighbours' parities.
      for (let x = 0; x < 5; x++) {
        f.get(a[x] as number);
        for (let y = 1; y < 5; y++) f.get(a[x + 5 * y] as number).emit(op.i64Xor);
        f.set(c[x] as number);
      }
      for (let x = 0; x < 5; x++) {
        f.get(c[(x + 4) % 5] as number)
          .get(c[(x + 1) % 5] as number)
          .i64(1n)
          .emit(op.i64Rotl, op.i64Xor)
          .set(d[x] as number);
      }
      // ρ and π: B[y, 2x + 3y] = rot(A[x, y] ^ D[x], r[x, y]).
      for (let x = 0; x < 5; x++) {
        for (let y = 0; y < 5; y++) {
          f.get(a[x + 5 * y] as number)
            .get(d[x] as number)
            .emit(op.i64Xor);
          const r = rot[x + 5 * y] as number;
          if (r !== 0) f.i64(BigInt(r)).emit(op.i64Rotl);
          f.set(b[y + 5 * ((2 * x + 3 * y) % 5)] as number);
        }
      }
      // χ: A[x, y] = B[x, y] ^ (~B[x + 1, y] & B[x + 2, y]); ι on lane 0.
      for (let y = 0; y < 5; y++) {
        for (let x = 0; x < 5; x++) {
          f.get(b[x + 5 * y] as number)
            .get(b[((x + 1) % 5) + 5 * y] as number)
            .i64(-1n)
            .emit(op.i64Xor)
            .get(b[((x + 2) % 5) + 5 * y] as number)
            .emit(op.i64And, op.i64Xor);
          if (x === 0 && y === 0) {
            f.get(ptr).get(round).i32(3).emit(op.i32Shl, op.i32Add);
            f.mem(op.i64Load, 3, ROUND_CONSTANTS_AT).emit(op.i64Xor);
          }
          f.set(a[x + 5 * y] as number);
        }
      }
    },
  );
  for (let i = 0; i < 25; i++)
    f.get(ptr)
      .get(a[i] as number)
      .mem(op.i64Store, 3, 8 * i);
  return f;
}

/** prepare(state): writes the round constants behind the Keccak state at `state`. */
export function prepareFn(): Fn {
  const f = new Fn(1);
  roundConstants().forEach((rc, i) => {
    f.get(0)
      .i64(rc)
      .mem(op.i64Store, 3, ROUND_CONSTANTS_AT + 8 * i);
  });
  return f;
}

/** Bytes absorbed per permutation at Keccak-256's capacity (17 lanes). */
const RATE = 136;
const OUT_AT = 512;
const INPUT_AT = 1024;

/**
 * absorb(state, input, blocks, output): Keccak-256 of `blocks` padded 136-byte blocks at `input`
 * (the caller pads), the 32-byte digest written to `output`. `state` must have been prepared.
 */
function absorbFn(): Fn {
  const f = new Fn(4);
  const [state, input, blocks, output] = [0, 1, 2, 3];
  const k = f.local(I32);
  for (let i = 0; i < 25; i++)
    f.get(state)
      .i64(0n)
      .mem(op.i64Store, 3, 8 * i);
  f.loop(
    k,
    (g) => g.get(blocks),
    () => {
      for (let i = 0; i < RATE / 8; i++) {
        f.get(state);
        f.get(state).mem(op.i64Load, 3, 8 * i);
        f.get(input).mem(op.i64Load, 0, 8 * i);
        f.emit(op.i64Xor).mem(op.i64Store, 3, 8 * i);
      }
      f.get(state).call(0);
      f.get(input).i32(RATE).emit(op.i32Add).set(input);
    },
  );
  for (let i = 0; i < 4; i++)
    f.get(output)
      .get(state)
      .mem(op.i64Load, 3, 8 * i)
      .mem(op.i64Store, 0, 8 * i);
  return f;
}

function assembleKeccak256(): Uint8Array<ArrayBuffer> {
  // keccakf is function 0 (absorb calls it); the memory is this thread's own, grown on demand.
  return assembleModule(
    [{ fn: keccakF() }, { fn: absorbFn(), export: 'absorb' }, { fn: prepareFn(), export: 'prepare' }],
    [0x00, 1],
  );
}

interface Keccak256Module {
  absorb(state: number, input: number, blocks: number, output: number): void;
  prepare(state: number): void;
}

/** Keccak-256 on the WebAssembly module (one per thread, instantiated on first use). */
export function wasmKeccak256(): (msg: Uint8Array) => Uint8Array {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const instance = new WebAssembly.Instance(new WebAssembly.Module(assembleKeccak256()), {
    e: { m: memory },
  });
  const k = instance.exports as unknown as Keccak256Module;
  k.prepare(0);
  let bytes = new Uint8Array(memory.buffer);
  return (msg: Uint8Array): Uint8Array => {
    const n = msg.length;
    const blocks = Math.floor(n / RATE) + 1;
    const end = INPUT_AT + blocks * RATE;
    if (end > bytes.length) {
      memory.grow(Math.ceil((end - bytes.length) / 65536));
      bytes = new Uint8Array(memory.buffer);
    }
    bytes.set(msg, INPUT_AT);
    // Keccak's padding: 0x01 after the message, 0x80 in the block's last byte (0x81 when they meet).
    bytes.fill(0, INPUT_AT + n, end);
    bytes[INPUT_AT + n] = 0x01;
    bytes[end - 1] |= 0x80;
    k.absorb(0, INPUT_AT, blocks, OUT_AT);
    return bytes.slice(OUT_AT, OUT_AT + 32);
  };
}
