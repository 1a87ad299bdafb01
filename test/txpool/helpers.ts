/** A test chain with a pool and filters attached, as node.ts wires them. */
import { FilterManager, type FilterManagerOptions } from '../../src/filters/manager.js';
import { TxPool, type TxPoolOptions } from '../../src/txpool/pool.js';
import { openTestChain, type TestChain, type TestChainOptions } from '../methods/chain.js';

export async function openPoolChain(
  opts: TestChainOptions,
  pool: Partial<TxPoolOptions> = {},
  filters: FilterManagerOptions = {},
): Promise<TestChain> {
  const chain = await openTestChain(opts);
  const s = chain.services;
  s.txPool = new TxPool(s.chain, s.world, s.common, {
    maxSize: 4096,
    priceBump: 10,
    maxFutureBySender: 200,
    minGasPrice: 1000n,
    txFeeCap: 10n ** 18n,
    strictReplayProtection: false,
    ...pool,
  });
  s.filters = new FilterManager(s.chain, s.txPool, { sweepMs: 0, ...filters });
  return chain;
}
