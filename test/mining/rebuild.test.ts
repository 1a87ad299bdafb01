/**
 * The producer's rebuild rule while a block is sealed (proof of work's `rebuildWhileSealing`), over a
 * real chain, pool, builder and importer; only the seal is held until the test releases it (a proof of
 * work search ends by luck). A pause in the stream of arrivals rebuilds the block being sealed with
 * what arrived meanwhile, so they need not wait for this seal and then another one.
 */
import type { Block } from '@ethereumjs/block';
import { afterEach, describe, expect, it } from 'vitest';
import type { SealingEngine } from '../../src/mining/engine.js';
import { fundedTransfer } from '../clique/helpers.js';
import { until } from '../helpers/poll.js';
import { closeProducers, openProducerChain } from './producerHelpers.js';

afterEach(closeProducers);

describe('rebuilding the block being sealed', () => {
  it('rebuilds with the arrivals once the stream pauses, and seals that block', async () => {
    const { c, pool, clique, producer: produce } = await openProducerChain();
    /** Every block handed to the seal, and the release of the one being sealed now. */
    const sealing: Block[] = [];
    let release: (() => void) | undefined;
    const engine: SealingEngine = {
      name: 'held',
      childHeaderFields: (parent, timestamp) => clique.childHeaderFields(parent, timestamp),
      childTimestamp: (parent) => parent.timestamp + 1n,
      nextBlockDelay: () => 0,
      executionHeader: clique.executionHeader?.bind(clique),
      seal: (block, signal) =>
        new Promise((resolve) => {
          sealing.push(block);
          const abort = () => resolve(undefined);
          signal.addEventListener('abort', abort, { once: true });
          release = () => {
            signal.removeEventListener('abort', abort);
            resolve(clique.seal(block, signal));
          };
        }),
    };
    const producer = produce(engine, { rebuildWhileSealing: true });

    // Four transactions in the pool, then production starts: the first block carries them.
    for (let n = 0; n < 4; n++) await pool.add(fundedTransfer(c, n), true);
    producer.start();
    await until(() => sealing.length === 1, 10_000, 'the first block to be sealed');
    expect(sealing[0]?.transactions.length).toBe(4);

    // Two more arrive (fewer than the block carries: no rebuild for the count) and the stream stops:
    // after the pause the block is built again with all six.
    for (let n = 4; n < 6; n++) await pool.add(fundedTransfer(c, n), true);
    await until(() => sealing.length === 2, 10_000, 'the rebuilt block to be sealed');
    expect(sealing[1]?.transactions.length).toBe(6);

    // Sealed and stored: all six are in the new head.
    release?.();
    await until(() => c.chain.headHeader().number === 1n, 10_000, 'block 1 to be stored');
    await until(() => pool.size === 0, 10_000, 'the pool to empty');
    const head = c.chain.getBlock(c.chain.head().hash);
    expect(head?.transactions.length).toBe(6);
  });
});
