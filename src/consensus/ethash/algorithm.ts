/**
 * Ethash: epoch sizes and seed, the light cache, and hashimoto-light. Words are little-endian uint32
 * as the algorithm defines them. The cache lives at the start of a shared WebAssembly memory (wasm.ts)
 * whose kernel computes the hashes: the memory is handed to the search threads as it is, and every
 * thread hashes in its own scratch slot behind the cache.
 */
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../../crypto/index.js';
import { type EthashKernel, epochMemory, kernel, MAX_BATCH, SLOT, slotOffset } from './wasm.js';

export { MAX_BATCH, SEARCH_BATCH } from './wasm.js';

export const EPOCH_LENGTH = 30000n;
const CACHE_BYTES_INIT = 2 ** 24;
const CACHE_BYTES_GROWTH = 2 ** 17;
const DATASET_BYTES_INIT = 2 ** 30;
const DATASET_BYTES_GROWTH = 2 ** 23;
const HASH_BYTES = 64;
const MIX_BYTES = 128;
const CACHE_ROUNDS = 3;

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

/** The memory each cache lives in (by its buffer), for caches made or adopted here. */
const memories = new WeakMap<ArrayBufferLike, WebAssembly.Memory>();

/** A zeroed light cache of `bytes`: the first `bytes` of a new shared memory with its scratch slots. */
export function allocateCache(bytes: number): Uint32Array {
  const memory = epochMemory(bytes);
  memories.set(memory.buffer, memory);
  return new Uint32Array(memory.buffer, 0, bytes / 4);
}

/**
 * The light cache: `bytes / 64` items, sequential keccak-512 from the seed, then three rounds of
 * RandMemoHash (keccak-512 by the kernel). Yields to the event loop every `yieldEvery` items so a
 * node stays responsive. The cache is made by allocateCache.
 */
export async function makeCache(bytes: number, seed: Uint8Array, yieldEvery = 1 << 15): Promise<Uint32Array> {
  const n = bytes / HASH_BYTES;
  const cache = allocateCache(bytes);
  const words = new Uint32Array(cache.buffer);
  const slot = slotOffset(bytes, 0);
  const k = kernel(memories.get(cache.buffer) as WebAssembly.Memory, slot);
  const state = slot + SLOT.state;
  const tmp = slot + SLOT.spare;
  const pause = () => new Promise<void>((r) => setImmediate(r));
  new Uint8Array(cache.buffer).set(seed, tmp);
  k.sponge(state, tmp, seed.length / 8, 9, 0, 8);
  for (let i = 1; i < n; i++) {
    k.sponge(state, (i - 1) * HASH_BYTES, 8, 9, i * HASH_BYTES, 8);
    if (i % yieldEvery === 0) await pause();
  }
  const t = tmp / 4;
  for (let round = 0; round < CACHE_ROUNDS; round++) {
    for (let i = 0; i < n; i++) {
      const v = ((cache[i * 16] as number) % n) * 16;
      const prev = ((i - 1 + n) % n) * 16;
      for (let w = 0; w < 16; w++) words[t + w] = (cache[prev + w] as number) ^ (cache[v + w] as number);
      k.sponge(state, tmp, 8, 9, i * HASH_BYTES, 8);
      if (i % yieldEvery === 0) await pause();
    }
  }
  return cache;
}

export interface PowResult {
  mixDigest: Uint8Array;
  /** keccak256(seed ‖ compressed mix); valid when ≤ 2^256 / difficulty. */
  result: Uint8Array;
}

/**
 * A reusable hashimoto-light evaluator over one epoch's cache: one nonce (`run`, for verification)
 * or a batch of consecutive nonces hashed in lockstep (`searchBatch`, for the nonce search).
 */
export class Hashimoto {
  readonly memory: WebAssembly.Memory;
  readonly cacheBytes: number;
  private readonly kernel: EthashKernel;
  private readonly bytes: Uint8Array;
  private readonly words: Uint32Array;
  private readonly slot: number;
  private readonly items: number;
  private readonly rows: number;

  /**
   * `cache` made by makeCache (or adopted by another Hashimoto) is used in place; any other is
   * copied once into a memory of its own. `slot` is the scratch slot: 0 on the main thread, one of
   * its own for every other thread sharing the memory.
   */
  constructor(cache: Uint32Array, fullSize: number, slot = 0) {
    let memory = cache.byteOffset === 0 ? memories.get(cache.buffer) : undefined;
    if (!memory) {
      memory = epochMemory(cache.byteLength);
      new Uint32Array(memory.buffer, 0, cache.length).set(cache);
      memories.set(memory.buffer, memory);
    }
    this.memory = memory;
    this.cacheBytes = cache.byteLength;
    this.slot = slotOffset(cache.byteLength, slot);
    this.kernel = kernel(memory, this.slot);
    this.bytes = new Uint8Array(memory.buffer);
    this.words = new Uint32Array(memory.buffer);
    this.items = cache.byteLength / HASH_BYTES;
    this.rows = fullSize / MIX_BYTES;
  }

  /** An evaluator over a memory received from another thread, in scratch slot `slot`. */
  static fromMemory(
    memory: WebAssembly.Memory,
    cacheBytes: number,
    fullSize: number,
    slot: number,
  ): Hashimoto {
    memories.set(memory.buffer, memory);
    return new Hashimoto(new Uint32Array(memory.buffer, 0, cacheBytes / 4), fullSize, slot);
  }

  /** `nonce` as the header carries it (8 bytes, big-endian). */
  run(headerHash: Uint8Array, nonce: Uint8Array): PowResult {
    const b = this.bytes;
    const s = this.slot;
    b.set(headerHash.subarray(0, 32), s + SLOT.header);
    for (let i = 0; i < 8; i++) b[s + SLOT.nonces + i] = nonce[7 - i] as number;
    this.kernel.hashimoto(this.items, this.rows, s, 1);
    return this.resultAt(0);
  }

  /**
   * Hashes `count` (1..MAX_BATCH) consecutive nonces from `hi`·2^32 + `lo` (wrapping at 2^64) and
   * returns the index of the first whose result is at most `boundary` (32 bytes, big-endian), or -1.
   */
  searchBatch(headerHash: Uint8Array, hi: number, lo: number, count: number, boundary: Uint8Array): number {
    if (count < 1 || count > MAX_BATCH) throw new RangeError(`batch of ${count} nonces`);
    const b = this.bytes;
    const s = this.slot;
    b.set(headerHash.subarray(0, 32), s + SLOT.header);
    const w = this.words;
    let at = (s + SLOT.nonces) / 4;
    let l = lo >>> 0;
    let h = hi >>> 0;
    for (let i = 0; i < count; i++) {
      w[at++] = l;
      w[at++] = h;
      l = (l + 1) >>> 0;
      if (l === 0) h = (h + 1) >>> 0;
    }
    this.kernel.hashimoto(this.items, this.rows, s, count);
    for (let i = 0; i < count; i++) {
      const r = s + SLOT.out + i * SLOT.outStride + 96;
      let k = 0;
      while (k < 32 && b[r + k] === boundary[k]) k++;
      if (k === 32 || (b[r + k] as number) < (boundary[k] as number)) return i;
    }
    return -1;
  }

  /** The mix digest and result of nonce `i` of the last batch (copies). */
  resultAt(i: number): PowResult {
    const o = this.slot + SLOT.out + i * SLOT.outStride;
    return { mixDigest: this.bytes.slice(o + 64, o + 96), result: this.bytes.slice(o + 96, o + 128) };
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

/** A search target (2^256 / difficulty) as the 32 big-endian bytes the kernel compares results with. */
export function boundaryBytes(target: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = target;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export function bytesToBigIntBE(b: Uint8Array): bigint {
  let hex = '0x';
  for (let i = 0; i < b.length; i++) hex += (b[i] as number).toString(16).padStart(2, '0');
  return b.length === 0 ? 0n : BigInt(hex);
}
