/** A test chain with the pool and filters the node builds, the pool's options given as configuration. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LONDON_AT_GENESIS } from '../../bench/genchain.mjs';
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

/**
 * `genesis` written as genesis.json in a new temporary folder named after `prefix`; returns its path
 * (`removeGenesisFile` takes the folder away once the chain has read it).
 */
export function writeGenesisFile(prefix: string, genesis: object): string {
  const path = join(mkdtempSync(join(tmpdir(), prefix)), 'genesis.json');
  writeFileSync(path, JSON.stringify(genesis));
  return path;
}

/** Removes the temporary folder of a file from `writeGenesisFile` or `pragueGenesisFile`. */
export function removeGenesisFile(path: string): void {
  rmSync(dirname(path), { recursive: true, force: true });
}

/**
 * A genesis file (in a new temporary folder named after `prefix`) of chain 1337 with every fork to
 * Prague active from genesis (merged, blob schedules), a 30M gas limit and `alloc`.
 */
export function pragueGenesisFile(
  prefix: string,
  alloc: Record<string, { balance: string; nonce?: string }>,
): string {
  return writeGenesisFile(prefix, {
    config: {
      chainId: 1337,
      ...LONDON_AT_GENESIS,
      terminalTotalDifficulty: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
      blobSchedule: {
        cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
        prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      },
    },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    baseFeePerGas: '0x7',
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
    alloc,
  });
}
