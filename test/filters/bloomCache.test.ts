/**
 * The log bloom cache over a real LMDB chain (written by bench/longchain.mjs): generated files hold
 * the canonical headers' blooms at Besu's offsets, queries over cached segments find exactly what
 * header scans find, new heads and reorgs rewrite the head's segment, and removal deletes the files
 * touching a range. Segments are 1,000 blocks here (100,000 in the node) to keep the chain small.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createBlock } from '@ethereumjs/block';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONGCHAIN_GENESIS, RARE_ADDRESS, RARE_TOPIC, writeLongChain } from '../../bench/longchain.mjs';
import { ChainStore } from '../../src/chain/chainStore.js';
import { createCommon, parseGenesis } from '../../src/config/genesis.js';
import { customCrypto } from '../../src/crypto/index.js';
import { Database } from '../../src/db/database.js';
import { canonicalBloom, LATEST_BLOCK, LogBloomCache } from '../../src/filters/bloomCache.js';
import { bloomMayMatch, canonicalLogs, compileLogQuery } from '../../src/filters/logs.js';
import { removeDir, tempDir } from '../helpers/node.js';

const SEGMENT = 1000;
const BLOCKS = 3500;

describe('log bloom cache', () => {
  let dir: string;
  let db: Database;
  let chain: ChainStore;
  let rare: number[];

  beforeAll(async () => {
    dir = tempDir('alder-bloom-');
    ({ rare } = await writeLongChain({ dataPath: dir, blocks: BLOCKS, rareEvery: 700, rareOffset: 321 }));
    const common = createCommon(parseGenesis(LONGCHAIN_GENESIS), { customCrypto: customCrypto() });
    db = Database.open(join(dir, 'database'));
    chain = new ChainStore(db, common);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    removeDir(dir);
  });

  const newCache = () => new LogBloomCache(chain, dir, { blocksPerSegment: SEGMENT, repairDelayMs: 0 });

  it('writes the metadata file and generates whole segments with the headers blooms at their offsets', async () => {
    const cache = newCache();
    cache.start(false);
    expect(JSON.parse(readFileSync(join(dir, 'caches/CACHE_METADATA.json'), 'utf8'))).toEqual({ version: 3 });
    // No params: a status query, not accepted.
    expect(cache.requestCaching(0n, -1n)).toEqual({
      startBlock: '0x0',
      endBlock: '0x0',
      currentBlock: '0x0',
      caching: false,
      requestAccepted: false,
    });
    const status = cache.requestCaching(1500n, LATEST_BLOCK);
    expect(status).toMatchObject({ startBlock: '0x5dc', endBlock: 'latest', requestAccepted: true });
    await cache.idle();
    // Rounded down to segment 1; segment 0 untouched.
    expect(existsSync(cache.segmentFile(0))).toBe(false);
    for (const s of [1, 2]) expect(statSync(cache.segmentFile(s)).size).toBe(SEGMENT * 256);
    expect(statSync(cache.segmentFile(3)).size).toBe((BLOCKS - 3000 + 1) * 256);
    const file = readFileSync(cache.segmentFile(2));
    for (const n of [2000, 2321, 2999]) {
      const at = (n % SEGMENT) * 256;
      expect(
        Buffer.from(file.subarray(at, at + 256)).equals(
          Buffer.from(chain.getHeaderByNumber(BigInt(n))?.logsBloom as Uint8Array),
        ),
      ).toBe(true);
    }
    expect(cache.cachingStatus()).toMatchObject({ caching: false, currentBlock: `0x${BLOCKS.toString(16)}` });
    await cache.stop();
  });

  it('answers log queries from full segments exactly as from headers', async () => {
    const cache = newCache();
    cache.start(false);
    await cache.generate(0n, LATEST_BLOCK);
    const q = compileLogQuery({ addresses: [RARE_ADDRESS], topics: [[RARE_TOPIC]] });
    const fromFiles = [...cache.candidates(1n, BigInt(BLOCKS), (b, at) => bloomMayMatch(b, q, at))];
    const fromHeaders: bigint[] = [];
    for (let n = 1n; n <= BigInt(BLOCKS); n++) {
      if (bloomMayMatch(chain.getHeaderByNumber(n)?.logsBloom as Uint8Array, q)) fromHeaders.push(n);
    }
    expect(fromFiles).toEqual(fromHeaders);
    expect(fromFiles).toEqual(expect.arrayContaining(rare.map(BigInt)));
    const withCache = canonicalLogs(chain, 250n, 3400n, q, cache);
    const without = canonicalLogs(chain, 250n, 3400n, q);
    expect(withCache.map((l) => l.blockNumber)).toEqual(
      rare.filter((n) => n >= 250 && n <= 3400).map(BigInt),
    );
    expect(withCache).toEqual(without);
    // A range inside one segment and a range ending in the partial last segment.
    expect(canonicalLogs(chain, 1021n, 1021n, q, cache)).toEqual(canonicalLogs(chain, 1021n, 1021n, q));
    expect(canonicalLogs(chain, 2900n, BigInt(BLOCKS), q, cache)).toEqual(
      canonicalLogs(chain, 2900n, BigInt(BLOCKS), q),
    );
    await cache.stop();
  });

  it('writes new heads into the head segment and rewrites it on a reorg', async () => {
    const cache = newCache();
    cache.start(true);
    const common = chain.common;
    const block = (parent: ReturnType<ChainStore['getBlockByNumber']>, salt: number) => {
      const p = parent as NonNullable<typeof parent>;
      const bloom = new Uint8Array(256);
      bloom[salt % 256] = 0xff;
      return createBlock(
        {
          header: {
            parentHash: p.hash(),
            number: p.header.number + 1n,
            timestamp: p.header.timestamp + 12n,
            gasLimit: 30_000_000n,
            baseFeePerGas: 7n,
            logsBloom: bloom,
            withdrawalsRoot: p.header.withdrawalsRoot,
            parentBeaconBlockRoot: new Uint8Array(32),
          },
          withdrawals: [],
        },
        { common, skipConsensusFormatValidation: true },
      );
    };
    const extend = (blocks: ReturnType<typeof block>[]) => {
      const b = chain.newBatch();
      for (const blk of blocks) chain.putBlock(b, blk, 0n, [], []);
      const moved = chain.setHead(b, blocks[blocks.length - 1] as ReturnType<typeof block>);
      db.commit(b);
      chain.headCommitted({ head: blocks[blocks.length - 1] as ReturnType<typeof block>, ...moved });
    };
    const base = chain.getBlockByNumber(BigInt(BLOCKS));
    const a1 = block(base, 1);
    const a2 = block(a1, 2);
    const a3 = block(a2, 3);
    extend([a1]);
    extend([a2]);
    extend([a3]);
    const file = cache.segmentFile(3);
    expect(statSync(file).size).toBe((BLOCKS + 3 - 3000 + 1) * 256);
    // A shorter branch from a1 that wins (as a fork choice would decide): b2 replaces a2 and a3.
    const b2 = block(a1, 200);
    extend([b2]);
    const bytes = readFileSync(file);
    expect(bytes.length).toBe((BLOCKS + 2 - 3000 + 1) * 256);
    const at = (BLOCKS + 2 - 3000) * 256;
    expect(Buffer.from(bytes.subarray(at, at + 256)).equals(Buffer.from(b2.header.logsBloom))).toBe(true);
    expect(
      Buffer.from(canonicalBloom(chain, BigInt(BLOCKS + 2)) as Uint8Array).equals(
        Buffer.from(b2.header.logsBloom),
      ),
    ).toBe(true);
    await cache.stop();
  });

  it('removes the files of the segments touching a range, and repairs the full ones below a block', async () => {
    const cache = newCache();
    cache.start(false);
    await cache.generate(0n, LATEST_BLOCK);
    cache.removeSegments(1500n, 2100n);
    expect(existsSync(cache.segmentFile(0))).toBe(true);
    expect(existsSync(cache.segmentFile(1))).toBe(false);
    expect(existsSync(cache.segmentFile(2))).toBe(false);
    expect(existsSync(cache.segmentFile(3))).toBe(true);
    expect(cache.repair(3000n)).toBe('Started');
    await new Promise((r) => setTimeout(r, 20));
    await cache.idle();
    for (const s of [0, 1, 2]) expect(cache.isFullSegment(s)).toBe(true);
    await cache.stop();
  });
});
