/**
 * Ethash over typed arrays: epoch sizes and seed, the light cache, dataset items computed from the
 * cache, and hashimoto-light. Words are little-endian uint32 as the algorithm defines them; the
 * cache is one Uint32Array (16 words per 64-byte item) so items are read in place, not copied.
 */
import { createRequire } from 'node:module';
import { RLP } from '@ethereumjs/rlp';
import { keccak256, keccak512 } from '../../crypto/index.js';

const require = createRequire(import.meta.url);
/**
 * The keccak package's Keccak-f[1600] permutation over 50 32-bit lane halves. Ethash hashes millions
 * of 64-byte words: permuting a reused state in place costs less than a call into the native sponge,
 * whose per-call object and buffer dominate at this size (measured 5 µs against 12 µs).
 */
const { p1600 } = require('keccak/lib/keccak-state-unroll.js') as { p1600(state: number[]): void };
const sponge: number[] = new Array(50).fill(0);

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

export const EPOCH_LENGTH = 30000n;
const CACHE_BYTES_INIT = 2 ** 24;
const CACHE_BYTES_GROWTH = 2 ** 17;
const DATASET_BYTES_INIT = 2 ** 30;
const DATASET_BYTES_GROWTH = 2 ** 23;
const HASH_BYTES = 64;
const MIX_BYTES = 128;
const DATASET_PARENTS = 256;
const CACHE_ROUNDS = 3;
const ACCESSES = 64;
const FNV_PRIME = 0x01000193;

if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
  throw new Error('Ethash word views assume a little-endian machine');
}

function isPrime(n: number): boolean {
  if (n < 2) return false;
  if (n % 2 === 0) return n === 2;
  for (let d = 3; d * d <= n; d += 2) if (n % d === 0) return false;
  return true;
}

export function epochOf(blockNumber: bigint): number {
  return Number(blockNumber / EPOCH_LENGTH);
}

/** Bytes of the light cache of `epoch`. */
export function cacheSize(epoch: number): number {
  let size = CACHE_BYTES_INIT + CACHE_BYTES_GROWTH * epoch - HASH_BYTES;
  while (!isPrime(size / HASH_BYTES)) size -= 2 * HASH_BYTES;
  return size;
}

/** Bytes of the full dataset of `epoch` (only its size is needed for light verification). */
export function datasetSize(epoch: number): number {
  let size = DATASET_BYTES_INIT + DATASET_BYTES_GROWTH * epoch - MIX_BYTES;
  while (!isPrime(size / MIX_BYTES)) size -= 2 * MIX_BYTES;
  return size;
}

export function seedHash(epoch: number): Uint8Array {
  let seed: Uint8Array = new Uint8Array(32);
  for (let i = 0; i < epoch; i++) seed = keccak256(seed);
  return seed;
}

/**
 * The light cache: `bytes / 64` items, sequential keccak-512 from the seed, then three rounds of
 * RandMemoHash. Yields to the event loop every `yieldEvery` items so a node stays responsive.
 */
export async function makeCache(bytes: number, seed: Uint8Array, yieldEvery = 1 << 15): Promise<Uint32Array> {
  const n = bytes / HASH_BYTES;
  const cache = new Uint32Array(n * 16);
  const pause = () => new Promise<void>((r) => setImmediate(r));
  new Uint8Array(cache.buffer).set(keccak512(seed), 0);
  for (let i = 1; i < n; i++) {
    keccak512Words(cache, (i - 1) * 16, cache, i * 16);
    if (i % yieldEvery === 0) await pause();
  }
  const tmp = new Uint32Array(16);
  for (let round = 0; round < CACHE_ROUNDS; round++) {
    for (let i = 0; i < n; i++) {
      const v = ((cache[i * 16] as number) % n) * 16;
      const prev = ((i - 1 + n) % n) * 16;
      for (let k = 0; k < 16; k++) tmp[k] = (cache[prev + k] as number) ^ (cache[v + k] as number);
      keccak512Words(tmp, 0, cache, i * 16);
      if (i % yieldEvery === 0) await pause();
    }
  }
  return cache;
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

export interface PowResult {
  mixDigest: Uint8Array;
  /** keccak256(seed ‖ compressed mix); valid when ≤ 2^256 / difficulty. */
  result: Uint8Array;
}

/** A reusable hashimoto-light evaluator over one epoch's cache. */
export class Hashimoto {
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

/** The hash a proof-of-work seal covers: the header RLP without mixHash and nonce (fields 13 and 14). */
export function sealHash(rawHeader: Uint8Array[]): Uint8Array {
  const fields = [...rawHeader.slice(0, 13), ...rawHeader.slice(15)];
  return keccak256(RLP.encode(fields));
}

/** 2^256 / difficulty as 32 big-endian bytes (the eth_getWork boundary). */
export function boundary(difficulty: bigint): bigint {
  if (difficulty <= 1n) return (1n << 256n) - 1n;
  return (1n << 256n) / difficulty;
}

export function bytesToBigIntBE(b: Uint8Array): bigint {
  let hex = '0x';
  for (let i = 0; i < b.length; i++) hex += (b[i] as number).toString(16).padStart(2, '0');
  return b.length === 0 ? 0n : BigInt(hex);
}
