/**
 * --poa-block-txs-selection-max-time: the shared builder stops selecting once the limit is spent, the
 * block it built then is valid (another node imports it, executing it), and what was not selected stays
 * in the pool for the next block.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { BlockBuilder } from '../../src/mining/builder.js';
import { startNode } from '../../src/node.js';
import { type CliqueTestChain, cliqueChainsOf, fundedTransfer, testKey } from '../clique/helpers.js';

const SIGNER = testKey('a');
const TXS = 150;

const open = cliqueChainsOf(SIGNER);

/** `TXS` value transfers of FUNDED in the pool, nonces 0… */
async function fillPool(c: CliqueTestChain): Promise<void> {
  const pool = c.services.txPool;
  if (!pool) throw new Error('no pool');
  for (let nonce = 0; nonce < TXS; nonce++) {
    await pool.add(fundedTransfer(c, nonce), true);
  }
  expect(pool.size).toBe(TXS);
}

/** Builds block 1 with `limitMs` of selection time, seals it, stores it; returns it with its tx count. */
async function buildWithLimit(c: CliqueTestChain, limitMs: number | undefined) {
  const builder = new BlockBuilder(c.chain, c.importer, c.services.txPool, {
    minGasPrice: () => 0n,
    minPriorityFee: () => 0n,
    targetGasLimit: () => undefined,
    selectionTimeLimitMs: () => limitMs,
  });
  const engine = c.clique.engine(SIGNER.key, new Uint8Array());
  const parent = c.chain.headHeader();
  const built = await builder.build(parent, engine, parent.timestamp + 1n);
  const sealed = await engine.seal(built.block, new AbortController().signal);
  if (!sealed) throw new Error('not sealed');
  expect(await c.importer.commitBuilt(sealed, built.execution)).toBe('imported');
  await c.services.txPool?.settled();
  return { sealed, txCount: built.txCount };
}

describe('transaction selection time limit', () => {
  it('stops selecting at the limit; the block is valid and the rest stays in the pool', async () => {
    const c = await open();
    const other = await open();
    await fillPool(c);

    // No time at all: an empty block, every transaction still pending.
    const empty = await buildWithLimit(c, 0);
    expect(empty.txCount).toBe(0);
    expect(c.services.txPool?.size).toBe(TXS);
    expect(await other.importer.importBlock(empty.sealed)).toBe('imported');

    // A few milliseconds: some transfers, not all of them (each costs far more than 5 ms / TXS).
    const part = await buildWithLimit(c, 5);
    expect(part.txCount).toBeGreaterThan(0);
    expect(part.txCount).toBeLessThan(TXS);
    expect(c.services.txPool?.size).toBe(TXS - part.txCount);
    // Another node executes the block and reaches the same state, receipts and hash.
    expect(await other.importer.importBlock(part.sealed)).toBe('imported');
    expect(other.chain.headHeader().hash()).toEqual(part.sealed.hash());

    // Without a limit the next block takes everything left.
    const rest = await buildWithLimit(c, undefined);
    expect(rest.txCount).toBe(TXS - part.txCount);
    expect(c.services.txPool?.size).toBe(0);
    expect(await other.importer.importBlock(rest.sealed)).toBe('imported');
  });

  it('takes a percentage from 1 to 100, 75 by default, on PoA networks only', async () => {
    const dev = (...args: string[]) => loadConfig(['--network=dev', ...args], {});
    expect(dev().poaBlockTxsSelectionMaxTime).toBe(75);
    expect(dev('--poa-block-txs-selection-max-time=20').poaBlockTxsSelectionMaxTime).toBe(20);
    expect(() => dev('--poa-block-txs-selection-max-time=0')).toThrow(/poa-block-txs-selection-max-time/);
    expect(() => dev('--poa-block-txs-selection-max-time=101')).toThrow(/poa-block-txs-selection-max-time/);
    // The development network is not PoA: the node refuses the option before touching anything.
    await expect(startNode(dev('--poa-block-txs-selection-max-time=20'))).rejects.toThrow(
      '--poa-block-txs-selection-max-time can only be used with PoA networks',
    );
  });
});
