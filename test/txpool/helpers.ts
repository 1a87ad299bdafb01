/** A test chain with the pool and filters the node builds, the pool's options given as configuration. */
import type { Config } from '../../src/config/types.js';
import type { FilterManagerOptions } from '../../src/filters/manager.js';
import type { TxPoolOptions } from '../../src/txpool/pool.js';
import { openTestChain, type TestChain, type TestChainOptions } from '../methods/chain.js';

export async function openPoolChain(
  opts: TestChainOptions,
  pool: Partial<TxPoolOptions> = {},
  filters: FilterManagerOptions = {},
): Promise<TestChain> {
  const config: Partial<Config> = { ...opts.config };
  if (pool.maxSize !== undefined) config.txPoolMaxSize = pool.maxSize;
  if (pool.priceBump !== undefined) config.txPoolPriceBump = pool.priceBump;
  if (pool.maxFutureBySender !== undefined) config.txPoolMaxFutureBySender = pool.maxFutureBySender;
  if (pool.minGasPrice !== undefined) config.minGasPrice = pool.minGasPrice;
  if (pool.txFeeCap !== undefined) config.rpcTxFeecap = pool.txFeeCap;
  if (pool.strictReplayProtection !== undefined)
    config.strictTxReplayProtectionEnabled = pool.strictReplayProtection;
  return openTestChain({ ...opts, config, filters });
}
