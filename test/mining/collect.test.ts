/**
 * The producer's collection window (`collectMs`, proof of work's setting): a block with transactions to
 * carry takes in the pool's arrivals as they come, executing each batch at once, until the stream
 * pauses once the block is due, or until its window ends; never before the engine says it is due.
 * Over a real chain, pool, builder and importer; the seal is recorded and then done by the test
 * chain's Clique key (a proof-of-work search ends by luck).
 */
import type { Block } from '@ethereumjs/block';
import { afterEach, describe, expect, it } from 'vitest';
import type { SealingEngine } from '../../src/mining/engine.js';
import { type CliqueTestChain, fundedTransfer } from '../clique/helpers.js';
import { until } from '../helpers/poll.js';
import { closeProducers, openProducerChain } from './producerHelpers.js';

afterEach(closeProducers);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Transactions in the canonical chain's blocks. */
function minedCount(c: CliqueTestChain): number {
  let mined = 0;
  for (let b = 1n; b <= c.chain.headHeader().number; b++)
    mined += c.chain.getBlock(c.chain.canonicalHash(b) as Uint8Array)?.transactions.length ?? 0;
  return mined;
}

/**
 * A producer collecting for `collectMs`, closing a due block after `quietMs` without an arrival;
 * `delayMs` is how long until the first block is due.
 */
async function setUp(collectMs: number, delayMs = 0, quietMs = 25) {
  const { c, pool, clique, producer: produce } = await openProducerChain();
  /** Every block handed to the seal, with the time it was. */
  const sealed: Array<{ block: Block; at: number }> = [];
  const started = performance.now();
  const engine: SealingEngine = {
    name: 'recorded',
    childHeaderFields: (parent, timestamp) => clique.childHeaderFields(parent, timestamp),
    childTimestamp: (parent) => parent.timestamp + 1n,
    // An empty block is due five seconds later (the producer holds its seal that long).
    nextBlockDelay: (parent, _now, hasPending = true) =>
      !hasPending ? 5_000 : parent.number === 0n ? Math.max(0, started + delayMs - performance.now()) : 0,
    executionHeader: clique.executionHeader?.bind(clique),
    seal: async (block, signal, holdMs = 0) => {
      if (holdMs > 0) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, holdMs);
          const abort = () => {
            clearTimeout(timer);
            resolve(undefined);
          };
          signal.addEventListener('abort', abort, { once: true });
        });
        if (signal.aborted) return undefined;
      }
      sealed.push({ block, at: performance.now() });
      return clique.seal(block, signal);
    },
  };
  const producer = produce(engine, { collectMs, collectQuietMs: quietMs });
  return { c, pool, producer, sealed, started };
}

describe('collecting arrivals into the block being built', () => {
  it('takes in a stream of arrivals and closes once it pauses', async () => {
    // A pause of 500 ms closes the block: far more than the timers below stretch on a busy machine.
    const { c, pool, producer, sealed } = await setUp(5_000, 0, 500);
    for (let n = 0; n < 2; n++) await pool.add(fundedTransfer(c, n), true);
    producer.start();
    // Six more, 8 ms apart.
    for (let n = 2; n < 8; n++) {
      await sleep(8);
      await pool.add(fundedTransfer(c, n), true);
    }
    await until(() => c.chain.headHeader().number === 1n, 10_000, 'block 1 to be stored');
    // One block, built once, with all eight: the arrivals ran into it as they came.
    expect(sealed).toHaveLength(1);
    expect(sealed[0]?.block.transactions.length).toBe(8);
    expect(minedCount(c)).toBe(8);
    expect(pool.size).toBe(0);
  });

  it('closes at the end of its window while the stream goes on', async () => {
    const { c, pool, producer, sealed, started } = await setUp(150);
    await pool.add(fundedTransfer(c, 0), true);
    producer.start();
    let n = 1;
    while (performance.now() - started < 600) {
      await sleep(5);
      await pool.add(fundedTransfer(c, n++), true);
    }
    const streamEnd = performance.now();
    await until(() => pool.size === 0, 10_000, 'the pool to empty');
    // The first block went out about 150 ms in, while transactions still arrived; nothing was lost.
    const first = sealed[0];
    expect(first).toBeDefined();
    expect(first?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(streamEnd);
    // It carries what arrived within its window (about one every 5 ms), not only the first one.
    expect(first?.block.transactions.length).toBeGreaterThan(5);
    expect(first?.block.transactions.length).toBeLessThan(n);
    expect(sealed.length).toBeGreaterThan(1);
    expect(minedCount(c)).toBe(n);
  });

  it('closes at once when other work waits for the importer, and is still sealed only when due', async () => {
    const { c, pool, producer, sealed, started } = await setUp(50, 1_500);
    await pool.add(fundedTransfer(c, 0), true);
    producer.start();
    await sleep(100);
    // Work queued behind the builder (here a fork-choice update of the head it has) runs long before
    // the block is due, instead of waiting for it.
    const queued = performance.now();
    await c.importer.setForkchoice(c.chain.head().hash);
    expect(performance.now() - queued).toBeLessThan(1_000);
    await until(() => c.chain.headHeader().number === 1n, 10_000, 'block 1 to be stored');
    expect(sealed[0]?.block.transactions.length).toBe(1);
    expect((sealed.at(-1)?.at ?? 0) - started).toBeGreaterThanOrEqual(1_495);
  });

  it('does not close before the block is due, taking in what arrives meanwhile', async () => {
    const { c, pool, producer, sealed, started } = await setUp(50, 300);
    await pool.add(fundedTransfer(c, 0), true);
    producer.start();
    await sleep(100);
    await pool.add(fundedTransfer(c, 1), true);
    await until(() => c.chain.headHeader().number === 1n, 10_000, 'block 1 to be stored');
    // Sealed once, when due (not after the 50 ms window), with both transactions.
    expect(sealed).toHaveLength(1);
    expect((sealed[0]?.at ?? 0) - started).toBeGreaterThanOrEqual(295);
    expect(sealed[0]?.block.transactions.length).toBe(2);
  });
});
