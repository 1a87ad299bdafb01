/**
 * Log queries through the decoded block log lists and the in-memory canonical blooms answer exactly what
 * the receipts-decoding path answers; the lists stay within their bound; blocks that leave the
 * canonical chain leave the in-memory index.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BlockLogCache } from '../../src/filters/blockLogCache.js';
import { canonicalLogs, compileLogQuery, type LogQuery } from '../../src/filters/logs.js';
import { CONFORMANCE, openTestChain, type TestChain } from '../methods/chain.js';

const RC = join(CONFORMANCE, 'rpc-compat');
const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
/** Entries as comparable text (a failing comparison of the objects themselves prints for minutes). */
const text = (logs: readonly unknown[]): string[] =>
  logs.map((l) =>
    JSON.stringify(l, (_, v) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'bigint' ? `${v}` : v,
    ),
  );

describe('block log cache', () => {
  let chain: TestChain;
  beforeAll(async () => {
    chain = await openTestChain({ genesis: join(RC, 'genesis.json'), blocks: join(RC, 'chain.rlp') });
  });
  afterAll(async () => {
    await chain?.close();
  });

  it('answers every query as the receipts do, cold and warm', () => {
    const store = chain.services.chain;
    const blooms = chain.services.logBloomCache;
    expect(blooms?.logLists).toBeDefined();
    const head = store.head().number;
    const all = canonicalLogs(store, 0n, head, compileLogQuery({ addresses: [], topics: [] }));
    expect(all.length).toBeGreaterThan(3);
    const some = all[Math.floor(all.length / 2)] as (typeof all)[number];
    const queries: LogQuery[] = [
      { addresses: [], topics: [] },
      { addresses: [some.address], topics: [] },
      { addresses: [some.address], topics: [[some.topics[0] as Uint8Array]] },
      { addresses: [], topics: [null, [hexBytes(`0x${'11'.repeat(32)}`)]] },
      { addresses: [hexBytes(`0x${'aa'.repeat(20)}`)], topics: [] },
    ];
    for (const query of queries) {
      const q = compileLogQuery(query);
      const expected = canonicalLogs(store, 0n, head, q);
      for (let pass = 0; pass < 2; pass++) {
        expect(text(canonicalLogs(store, 0n, head, q, blooms))).toEqual(text(expected));
        expect(text(canonicalLogs(store, 1n, head - 1n, q, blooms))).toEqual(
          text(expected.filter((l) => l.blockNumber >= 1n && l.blockNumber <= head - 1n)),
        );
      }
    }
  });

  it('holds no more logs than its bound', () => {
    const store = chain.services.chain;
    const cache = new BlockLogCache(store, 4);
    for (let n = 0n; n <= store.head().number; n++) {
      const header = store.getHeaderByNumber(n);
      if (header) cache.get(header);
      expect(cache.size).toBeLessThanOrEqual(Math.max(4, cache.get(header!)?.entries.length ?? 0));
    }
    cache.close();
  });

  it('forgets the canonical hash and bloom of a block that leaves the chain', () => {
    const store = chain.services.chain;
    const cache = new BlockLogCache(store);
    const n = store.head().number - 1n;
    const slot = cache.canonicalSlot(n);
    expect(Buffer.from(cache.slotHash(slot))).toEqual(Buffer.from(store.canonicalHash(n) as Uint8Array));
    const reads = vi.spyOn(store, 'canonicalHash');
    try {
      cache.canonicalSlot(n);
      expect(reads).not.toHaveBeenCalled();
      const block = store.getBlockByNumber(n)!;
      const head = store.getBlock(store.head().hash)!;
      store.emit('newHead', { head, added: [], removed: [block] });
      // Other listeners may read the chain on the event: count only what the slot lookup reads.
      reads.mockClear();
      cache.canonicalSlot(n);
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
      cache.close();
    }
  });
});
