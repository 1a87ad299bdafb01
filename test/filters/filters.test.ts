/** Poll filters: ids, changes since the last poll, removed logs on reorg, expiry (injected clock), the bound. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilterManager, normaliseId } from '../../src/filters/manager.js';
import { CONFORMANCE, type TestChain } from '../methods/chain.js';
import { openPoolChain } from '../txpool/helpers.js';

const RC = join(CONFORMANCE, 'rpc-compat');

describe('filters', () => {
  let chain: TestChain;
  let now = 1_000_000;
  beforeAll(async () => {
    chain = await openPoolChain(
      { genesis: join(RC, 'genesis.json'), blocks: join(RC, 'chain.rlp') },
      {},
      { now: () => now, maxFilters: 5 },
    );
  });
  afterAll(async () => {
    chain?.services.filters?.close();
    await chain?.close();
  });
  const head = () => chain.services.chain.getBlock(chain.services.chain.head().hash)!;

  it('ids are quantities of up to 16 random bytes; unknown ids answer Besu errors', async () => {
    const id = (await chain.call('eth_newBlockFilter')).result as string;
    expect(id).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/);
    expect(await chain.call('eth_getFilterChanges', ['0x00FFFFFFFFFFFFFFFF'])).toEqual({
      error: { code: -32000, message: 'Filter not found' },
    });
    expect(await chain.call('eth_getFilterLogs', [id])).toEqual({
      error: { code: -32000, message: 'Logs filter not found' },
    });
    expect(await chain.call('eth_uninstallFilter', ['0x8000000000000000'])).toEqual({ result: false });
    expect(await chain.call('eth_uninstallFilter', [id])).toEqual({ result: true });
    expect(await chain.call('eth_uninstallFilter', [id])).toEqual({ result: false });
    expect(await chain.call('eth_newFilter', [{ address: ['foo'] }])).toEqual({
      error: { code: -32602, message: 'Invalid filter params' },
    });
    expect(normaliseId('0x00ff')).toBe('0xff');
  });

  it('block filters return new block hashes once; log filters re-emit reorged logs as removed', async () => {
    const block = (await chain.call('eth_newBlockFilter')).result as string;
    const logs = (await chain.call('eth_newFilter', [{ fromBlock: '0x0' }])).result as string;
    expect((await chain.call('eth_getFilterChanges', [block])).result).toEqual([]);
    const all = (await chain.call('eth_getFilterLogs', [logs])).result as Array<Record<string, unknown>>;
    const direct = (await chain.call('eth_getLogs', [{ fromBlock: '0x0' }])).result;
    expect(all).toEqual(direct);
    // a block with logs leaves the chain, then comes back
    const withLogs = all.at(-1) as { blockHash: string };
    const b = chain.services.chain.getBlock(Buffer.from(withLogs.blockHash.slice(2), 'hex'))!;
    chain.services.chain.emit('newHead', { head: head(), added: [], removed: [b] });
    chain.services.chain.emit('newHead', { head: head(), added: [b], removed: [] });
    const changes = (await chain.call('eth_getFilterChanges', [logs])).result as Array<
      Record<string, unknown>
    >;
    const n = all.filter((l) => l.blockHash === withLogs.blockHash).length;
    expect(changes).toHaveLength(2 * n);
    expect(changes.slice(0, n).every((l) => l.removed === true)).toBe(true);
    expect(changes.slice(n).every((l) => l.removed === false)).toBe(true);
    expect((await chain.call('eth_getFilterChanges', [block])).result).toEqual([withLogs.blockHash]);
    expect((await chain.call('eth_getFilterChanges', [block])).result).toEqual([]);
    // a numeric toBlock below the new block: nothing
    const bounded = (await chain.call('eth_newFilter', [{ fromBlock: '0x0', toBlock: '0x1' }]))
      .result as string;
    chain.services.chain.emit('newHead', { head: head(), added: [b], removed: [] });
    expect((await chain.call('eth_getFilterChanges', [bounded])).result).toEqual([]);
    for (const id of [block, logs, bounded]) await chain.call('eth_uninstallFilter', [id]);
  });

  it('pending transaction filters see pool additions', async () => {
    const id = (await chain.call('eth_newPendingTransactionFilter')).result as string;
    const raw =
      '0xf86c808401a213988261a894aa000000000000000000000000000000000000000a8255448718e5bb3abd109fa073fbe7ff7e74339e7cc61fb3cb3f7630cd3f1d5fef653d7297654b2d22894daea042a188d30f35f19408c73c803bc1e9e17ce129c457e31fd2a368b54507af2f4c';
    const hash = (await chain.call('eth_sendRawTransaction', [raw])).result;
    expect(hash).toBe('0xb55b6dfd4ba0bb2b00283b0e84cda496c90bc7c5ae9025e07edc3a7fbaf6a269');
    expect((await chain.call('eth_getFilterChanges', [id])).result).toEqual([hash]);
    expect((await chain.call('eth_getFilterChanges', [id])).result).toEqual([]);
    await chain.call('eth_uninstallFilter', [id]);
  });

  it('expires 10 minutes after creation or the last poll', async () => {
    const id = (await chain.call('eth_newBlockFilter')).result as string;
    now += 9 * 60_000;
    expect((await chain.call('eth_getFilterChanges', [id])).result).toEqual([]);
    now += 9 * 60_000;
    expect((await chain.call('eth_getFilterChanges', [id])).result).toEqual([]);
    now += 10 * 60_000;
    expect((await chain.call('eth_getFilterChanges', [id])).error).toEqual({
      code: -32000,
      message: 'Filter not found',
    });
    const other = (await chain.call('eth_newBlockFilter')).result as string;
    now += 10 * 60_000;
    chain.services.filters!.sweep();
    expect(chain.services.filters!.size).toBe(0);
    expect(await chain.call('eth_uninstallFilter', [other])).toEqual({ result: false });
  });

  it('bounds the number of filters', async () => {
    for (let i = 0; i < 5; i++) expect((await chain.call('eth_newBlockFilter')).result).toBeTypeOf('string');
    expect((await chain.call('eth_newBlockFilter')).error).toEqual({
      code: -32000,
      message: 'Filter limit reached',
    });
    now += 11 * 60_000;
    expect((await chain.call('eth_newBlockFilter')).result).toBeTypeOf('string');
  });

  it('the sweeper timer runs and stops', async () => {
    const m = new FilterManager(chain.services.chain, undefined, { sweepMs: 5, now: () => now });
    m.newBlockFilter();
    now += 11 * 60_000;
    await new Promise((r) => setTimeout(r, 30));
    expect(m.size).toBe(0);
    m.close();
  });
});
