/**
 * The Ethash kernel (WebAssembly) against known seals and the plain JavaScript reference: real
 * proof-of-work seals of Besu's hive test chain (epoch 0, mined by another client), single and
 * batched evaluation on many random headers and nonces, and the kernel's Keccak against the node's.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Block, createBlock, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { createAddressFromString } from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allocateCache,
  boundary,
  bytesToBigIntBE,
  cacheSize,
  datasetSize,
  Hashimoto,
  MAX_BATCH,
  makeCache,
  sealHash,
  seedHash,
} from '../../src/consensus/ethash/algorithm.js';
import type { EpochCache, EthashCaches } from '../../src/consensus/ethash/caches.js';
import { EthashEngine } from '../../src/consensus/ethash/engine.js';
import { ReferenceHashimoto } from '../../src/consensus/ethash/reference.js';
import { createSealVerifier } from '../../src/consensus/ethash/seal.js';
import { kernel, SLOT, slotOffset } from '../../src/consensus/ethash/wasm.js';
import { keccak256, keccak512 } from '../../src/crypto/index.js';
import { HIVE_CHAIN } from '../helpers/conformance.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** 8 big-endian bytes of hi·2^32 + lo. */
function nonceOf(hi: number, lo: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setUint32(0, hi);
  new DataView(out.buffer).setUint32(4, lo);
  return out;
}

describe('ethash kernel', () => {
  it('computes keccak-512 and keccak-256 as the node does for the lengths Ethash hashes', () => {
    const cache = allocateCache(64 * 7);
    const memory = new Hashimoto(cache, 128 * 11).memory;
    const slot = slotOffset(cache.byteLength, 0);
    const k = kernel(memory, slot);
    const bytes = new Uint8Array(memory.buffer);
    const input = slot + SLOT.spare;
    const output = slot + SLOT.out;
    for (let trial = 0; trial < 20; trial++) {
      for (const [len, rate, outLen, reference] of [
        [32, 9, 64, keccak512],
        [40, 9, 64, keccak512],
        [64, 9, 64, keccak512],
        [96, 17, 32, keccak256],
      ] as const) {
        const msg = randomBytes(len);
        bytes.set(msg, input);
        k.sponge(slot + SLOT.state, input, len / 8, rate, output, outLen / 8);
        expect(hex(bytes.subarray(output, output + outLen))).toBe(hex(reference(msg)));
      }
    }
  });

  describe('on a small cache', () => {
    const fullSize = 128 * 10007;
    let cache: Uint32Array;
    let fast: Hashimoto;
    let reference: ReferenceHashimoto;
    beforeAll(async () => {
      cache = await makeCache(64 * 1031, new Uint8Array(32).fill(9));
      fast = new Hashimoto(cache, fullSize);
      reference = new ReferenceHashimoto(cache, fullSize);
    });

    it('gives the reference results one nonce at a time', () => {
      for (let n = 0; n < 40; n++) {
        const headerHash = randomBytes(32);
        const nonce = randomBytes(8);
        const a = reference.run(headerHash, nonce);
        const b = fast.run(headerHash, nonce);
        expect(hex(b.mixDigest)).toBe(hex(a.mixDigest));
        expect(hex(b.result)).toBe(hex(a.result));
      }
    });

    it('gives the single-nonce results in batches of every size, across a 2^32 carry and 2^64 wrap', () => {
      const never = new Uint8Array(32);
      const starts: [number, number][] = [
        [0x12345678, 0x9abcdef0],
        [0x00000001, 0xfffffffd],
        [0xffffffff, 0xfffffffe],
        [0, 0],
      ];
      for (let count = 1; count <= MAX_BATCH; count++) {
        for (const [hi, lo] of starts) {
          const headerHash = randomBytes(32);
          expect(fast.searchBatch(headerHash, hi, lo, count, never)).toBe(-1);
          const batch = Array.from({ length: count }, (_, i) => fast.resultAt(i));
          for (let i = 0; i < count; i++) {
            const l = (lo + i) >>> 0;
            const h = (hi + (lo + i > 0xffffffff ? 1 : 0)) >>> 0;
            const single = fast.run(headerHash, nonceOf(h, l));
            expect(hex(batch[i]?.mixDigest as Uint8Array)).toBe(hex(single.mixDigest));
            expect(hex(batch[i]?.result as Uint8Array)).toBe(hex(single.result));
          }
        }
      }
    });

    it('finds the first nonce whose result is at most the boundary', () => {
      const headerHash = randomBytes(32);
      expect(fast.searchBatch(headerHash, 7, 100, 4, new Uint8Array(32).fill(0xff))).toBe(0);
      fast.searchBatch(headerHash, 7, 100, 4, new Uint8Array(32));
      const results = [0, 1, 2, 3].map((i) => fast.resultAt(i).result);
      // A boundary equal to a result accepts that nonce (or an earlier one with a smaller result).
      for (let i = 0; i < 4; i++) {
        const bound = results[i] as Uint8Array;
        const expected = results.findIndex((r) => Buffer.compare(r, bound) <= 0);
        expect(fast.searchBatch(headerHash, 7, 100, 4, bound)).toBe(expected);
      }
      // A boundary one below the smallest result accepts none.
      const smallest = [...results].sort(Buffer.compare)[0] as Uint8Array;
      const below = bytesToBigIntBE(smallest) - 1n;
      const belowBytes = new Uint8Array(32);
      for (let i = 0, v = below; i < 32; i++, v >>= 8n) belowBytes[31 - i] = Number(v & 0xffn);
      expect(fast.searchBatch(headerHash, 7, 100, 4, belowBytes)).toBe(-1);
    });

    it('adopts a cache that lives elsewhere by copying it', () => {
      const copy = new Uint32Array(cache);
      const other = new Hashimoto(copy, fullSize);
      expect(other.memory).not.toBe(fast.memory);
      const headerHash = randomBytes(32);
      const nonce = randomBytes(8);
      expect(hex(other.run(headerHash, nonce).result)).toBe(hex(fast.run(headerHash, nonce).result));
    });
  });

  describe('on the epoch-0 cache', () => {
    let cache: Uint32Array;
    let fast: Hashimoto;
    beforeAll(async () => {
      cache = await makeCache(cacheSize(0), seedHash(0));
      fast = new Hashimoto(cache, datasetSize(0));
    });

    it('verifies the real seals of the hive test chain (epoch 0) and agrees with the reference', async () => {
      const reference = new ReferenceHashimoto(cache, datasetSize(0));
      const file = readFileSync(HIVE_CHAIN.blocks);
      let rest: Uint8Array = new Uint8Array(file);
      let checked = 0;
      while (rest.length > 0) {
        const decoded = RLP.decode(rest, true);
        rest = decoded.remainder;
        const header = (decoded.data as unknown as Uint8Array[][])[0] as Uint8Array[];
        const number = bytesToBigIntBE(header[8] as Uint8Array);
        // From block 33 (London) the chain's blocks carry no proof of work.
        if (number > 32n) continue;
        const headerHash = sealHash(header);
        const nonce = header[14] as Uint8Array;
        const { mixDigest, result } = fast.run(headerHash, nonce);
        expect(hex(mixDigest)).toBe(hex(header[13] as Uint8Array));
        expect(bytesToBigIntBE(result) <= boundary(bytesToBigIntBE(header[7] as Uint8Array))).toBe(true);
        if (number % 8n === 0n) expect(hex(reference.run(headerHash, nonce).result)).toBe(hex(result));
        // The batch holding the sealed nonce finds it.
        const hi = new DataView(nonce.buffer, nonce.byteOffset).getUint32(0);
        const lo = new DataView(nonce.buffer, nonce.byteOffset).getUint32(4);
        const bound = new Uint8Array(32);
        for (let i = 0, v = boundary(bytesToBigIntBE(header[7] as Uint8Array)); i < 32; i++, v >>= 8n)
          bound[31 - i] = Number(v & 0xffn);
        if (lo >= 2) {
          const found = fast.searchBatch(headerHash, hi, lo - 2, 4, bound);
          expect(found).toBeGreaterThanOrEqual(0);
          expect(found).toBeLessThanOrEqual(2);
          if (found === 2) expect(hex(fast.resultAt(2).mixDigest)).toBe(hex(header[13] as Uint8Array));
        }
        checked++;
      }
      expect(checked).toBe(33);
    });

    it('seals a dev-network block (difficulty 100) by the search on this thread, and the seal verifies', async () => {
      const epoch: EpochCache = {
        epoch: 0,
        seed: seedHash(0),
        fullSize: datasetSize(0),
        cache,
        hashimoto: fast,
      };
      const caches = { get: async () => epoch } as unknown as EthashCaches;
      // Run from the sources there is no compiled search thread: the engine searches in slices here.
      const engine = new EthashEngine({ calcDifficulty: () => 100n }, caches, {
        coinbase: createAddressFromString(`0x${'11'.repeat(20)}`),
        extraData: new Uint8Array(),
      });
      const common = new Common({ chain: Mainnet, hardfork: Hardfork.London });
      const block = createBlock(
        {
          header: { number: 1n, difficulty: 100n, gasLimit: 8_000_000n, timestamp: 1000n, baseFeePerGas: 7n },
        },
        { common, skipConsensusFormatValidation: true },
      );
      const sealed = await engine.seal(block, new AbortController().signal);
      await engine.close();
      expect(sealed).toBeDefined();
      const header = (sealed as Block).header;
      expect(await createSealVerifier(caches)(header)).toBeUndefined();
      const reference = new ReferenceHashimoto(cache, datasetSize(0)).run(
        sealHash(header.raw()),
        header.nonce,
      );
      expect(hex(reference.mixDigest)).toBe(hex(header.mixHash));
      expect(bytesToBigIntBE(reference.result) <= boundary(100n)).toBe(true);
      // One nonce changed: the seal no longer verifies.
      const raw = header.raw();
      raw[14] = new Uint8Array(header.nonce).map((b, i) => (i === 7 ? b ^ 1 : b));
      const forged = createBlockHeaderFromBytesArray(raw, { common, skipConsensusFormatValidation: true });
      expect(await createSealVerifier(caches)(forged)).toMatch(/invalid proof-of-work seal/);
    });
  });
});
