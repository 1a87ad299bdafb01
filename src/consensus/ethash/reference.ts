/**
 * Hashimoto-light in plain JavaScript, one dataset item after another: the reference the
 * WebAssembly kernel (wasm.ts) is checked against in tests and measured against in
 * `bench/ethash.mjs`. Nothing on the node's paths uses it.
 */
import { createRequire } from 'node:module';
import { keccak256, keccak512 } from '../../crypto/index.js';
import type { PowResult } from './algorithm.js';

const require = createRequire(import.meta.url);
/** The keccak package's Keccak-f[1600] over 50 32-bit lane halves. */
const { p1600 } = require('keccak/lib/keccak-state-unroll.js') as { p1600(state: number[]): void };
const sponge: number[] = new Array(50).fill(0);

const MIX_BYTES = 128;
const DATASET_PARENTS = 256;
const ACCESSES = 64;
const FNV_PRIME = 0x01000193;

/** keccak-512 of 16 words (64 bytes) from `src` at `srcAt`, written to `dst` at `dstAt`. */
function keccak512Words(src: Uint32Array, srcAt: number, dst: Uint32Array, dstAt: number): void {
  const st = sponge;
  for (let i = 0; i < 16; i++) st[i] = src[srcAt + i] as number;
  // Rate of keccak-512 is 72 bytes: pad byte 64 with 0x01 and byte 71 with 0x80.
  st[16] = 1;
  st[17] = 0x80000000;
  for (let i = 18; i < 50; i++) st[i] = 0;
  p1600(st);
  for (let i = 0; i < 16; i++) dst[dstAt + i] = st[i] as number;
}

/** One 64-byte dataset item derived from the cache, written into `out` at `at` (16 words). */
function datasetItem(cache: Uint32Array, index: number, out: Uint32Array, at: number): void {
  const n = cache.length / 16;
  const base = (index % n) * 16;
  for (let k = 0; k < 16; k++) out[at + k] = cache[base + k] as number;
  out[at] = ((out[at] as number) ^ index) >>> 0;
  keccak512Words(out, at, out, at);
  for (let j = 0; j < DATASET_PARENTS; j++) {
    const parent = ((Math.imul(index ^ j, FNV_PRIME) ^ (out[at + (j % 16)] as number)) >>> 0) % n;
    const p = parent * 16;
    for (let k = 0; k < 16; k++)
      out[at + k] = Math.imul(out[at + k] as number, FNV_PRIME) ^ (cache[p + k] as number);
  }
  keccak512Words(out, at, out, at);
}

/** A reusable hashimoto-light evaluator over one epoch's cache (16 little-endian words per item). */
export class ReferenceHashimoto {
  private readonly mix = new Uint32Array(32);
  private readonly item = new Uint32Array(32);
  private readonly seedInput = new Uint8Array(40);
  private readonly finalInput = new Uint8Array(96);
  private readonly rows: number;

  constructor(
    private readonly cache: Uint32Array,
    fullSize: number,
  ) {
    this.rows = fullSize / MIX_BYTES;
  }

  /** `nonce` as the header carries it (8 bytes, big-endian). */
  run(headerHash: Uint8Array, nonce: Uint8Array): PowResult {
    const input = this.seedInput;
    input.set(headerHash, 0);
    for (let i = 0; i < 8; i++) input[32 + i] = nonce[7 - i] as number;
    const s = keccak512(input);
    const sWords = new Uint32Array(s.buffer.slice(s.byteOffset, s.byteOffset + 64));
    const mix = this.mix;
    mix.set(sWords, 0);
    mix.set(sWords, 16);
    const s0 = sWords[0] as number;
    const item = this.item;
    for (let i = 0; i < ACCESSES; i++) {
      const row = ((Math.imul(i ^ s0, FNV_PRIME) ^ (mix[i % 32] as number)) >>> 0) % this.rows;
      datasetItem(this.cache, row * 2, item, 0);
      datasetItem(this.cache, row * 2 + 1, item, 16);
      for (let k = 0; k < 32; k++) mix[k] = Math.imul(mix[k] as number, FNV_PRIME) ^ (item[k] as number);
    }
    const cmix = new Uint32Array(8);
    for (let i = 0; i < 32; i += 4) {
      let v = Math.imul(mix[i] as number, FNV_PRIME) ^ (mix[i + 1] as number);
      v = Math.imul(v, FNV_PRIME) ^ (mix[i + 2] as number);
      v = Math.imul(v, FNV_PRIME) ^ (mix[i + 3] as number);
      cmix[i / 4] = v >>> 0;
    }
    const mixDigest = new Uint8Array(cmix.buffer);
    this.finalInput.set(s, 0);
    this.finalInput.set(mixDigest, 64);
    return { mixDigest, result: keccak256(this.finalInput) };
  }
}
