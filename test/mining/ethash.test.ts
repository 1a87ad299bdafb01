/** Alder's Ethash against @ethereumjs/ethash, on a small cache so the cross-check stays quick. */
import { createBlockHeader } from '@ethereumjs/block';
import { Ethash } from '@ethereumjs/ethash';
import { MapDB } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import {
  boundary,
  bytesToBigIntBE,
  cacheSize,
  datasetSize,
  Hashimoto,
  makeCache,
  seedHash,
} from '../../src/consensus/ethash/algorithm.js';
import { EthashEngine } from '../../src/consensus/ethash/engine.js';
import { nextGasLimit } from '../../src/mining/builder.js';
import { effectiveTip } from '../../src/mining/selection.js';

describe('ethash', () => {
  it('builds the same cache and the same hashimoto results as @ethereumjs/ethash', async () => {
    const reference = new Ethash(new MapDB() as never);
    const seed = new Uint8Array(32).fill(9);
    const bytes = 64 * 1031;
    const theirs = reference.mkcache(bytes, seed);
    const ours = await makeCache(bytes, seed);
    const ourBytes = new Uint8Array(ours.buffer);
    theirs.forEach((item, i) => {
      expect(Buffer.from(ourBytes.subarray(i * 64, i * 64 + 64)).equals(Buffer.from(item))).toBe(true);
    });
    reference.cache = theirs;
    const fullSize = 128 * 10007;
    const hashimoto = new Hashimoto(ours, fullSize);
    for (let n = 0; n < 5; n++) {
      const headerHash = new Uint8Array(32).fill(n + 1);
      const nonce = new Uint8Array([0, 0, 0, 0, 0, 0, n, 7]);
      const a = reference.run(headerHash, nonce, fullSize);
      const b = hashimoto.run(headerHash, nonce);
      expect(Buffer.from(b.mixDigest).toString('hex')).toBe(Buffer.from(a.mix).toString('hex'));
      expect(Buffer.from(b.result).toString('hex')).toBe(Buffer.from(a.hash).toString('hex'));
    }
  });

  it('sizes and seeds epochs as the specification does', () => {
    expect(cacheSize(0)).toBe(16776896);
    expect(datasetSize(0)).toBe(1073739904);
    expect(cacheSize(1)).toBe(16907456);
    expect(Buffer.from(seedHash(0)).toString('hex')).toBe('00'.repeat(32));
    expect(Buffer.from(seedHash(1)).toString('hex')).toBe(
      '290decd9548b62a8d60345a988386fc84ba6bc95484008f6362f93160ef3e563',
    );
  });

  it('boundary is 2^256 / difficulty', () => {
    expect(boundary(100n)).toBe((1n << 256n) / 100n);
    expect(bytesToBigIntBE(new Uint8Array([1, 0]))).toBe(256n);
  });
});

describe('ethash block schedule', () => {
  const engine = new EthashEngine({ calcDifficulty: () => 100n }, undefined as never, {
    coinbase: undefined,
    extraData: new Uint8Array(),
  });
  const parent = createBlockHeader({ number: 5n, timestamp: 1000n }, { skipConsensusFormatValidation: true });

  it('runs up to 10 s ahead of the clock only with transactions to include', () => {
    // The clock at 995.5 s: a child (timestamp 1001) would be 5.5 s ahead.
    expect(engine.nextBlockDelay(parent, 995_500, true)).toBe(0);
    expect(engine.nextBlockDelay(parent, 995_500, false)).toBe(5500);
    // 10 s is the limit with transactions too.
    expect(engine.nextBlockDelay(parent, 989_000, true)).toBe(2000);
    // Once the clock reaches the child's timestamp an empty block is due as well.
    expect(engine.nextBlockDelay(parent, 1_001_000, false)).toBe(0);
    expect(engine.childTimestamp(parent, 995_500)).toBe(1001n);
  });
});

describe('block builder rules', () => {
  it('moves the gas limit towards the target by less than parent/1024', () => {
    expect(nextGasLimit(30_000_000n, undefined)).toBe(30_000_000n);
    expect(nextGasLimit(30_000_000n, 60_000_000n)).toBe(30_000_000n + 30_000_000n / 1024n - 1n);
    expect(nextGasLimit(30_000_000n, 29_990_000n)).toBe(29_990_000n);
    expect(nextGasLimit(30_000_000n, 1n)).toBe(30_000_000n - (30_000_000n / 1024n - 1n));
  });

  it('ranks by the tip earned at the base fee', () => {
    const legacy = { type: 0, gasPrice: 50n } as never;
    const dyn = { type: 2, maxFeePerGas: 100n, maxPriorityFeePerGas: 5n } as never;
    expect(effectiveTip(legacy, 10n)).toBe(40n);
    expect(effectiveTip(dyn, 10n)).toBe(5n);
    expect(effectiveTip(dyn, 98n)).toBe(2n);
    expect(effectiveTip(dyn, 101n)).toBe(-1n);
  });
});
