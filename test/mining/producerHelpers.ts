/**
 * A block producer over a real Clique test chain, pool, builder and importer, with a sealing engine
 * the test writes (a proof-of-work search ends by luck, so tests decide when and how blocks are
 * sealed; the chain's Clique key signs them). `closeProducers` stops and closes everything opened.
 */

import { BlockBuilder } from '../../src/mining/builder.js';
import type { SealingEngine } from '../../src/mining/engine.js';
import { BlockProducer, type ProducerOptions } from '../../src/mining/producer.js';
import type { TxPool } from '../../src/txpool/pool.js';
import { type CliqueTestChain, cliqueGenesis, openCliqueChain, testKey } from '../clique/helpers.js';

const SIGNER = testKey('a');

const opened: CliqueTestChain[] = [];
const producers: BlockProducer[] = [];

export async function closeProducers(): Promise<void> {
  for (const p of producers.splice(0)) await p.stop();
  for (const c of opened.splice(0)) await c.close();
}

export interface ProducerChain {
  c: CliqueTestChain;
  pool: TxPool;
  /** The chain's Clique engine for its signer: header fields, execution header and the seal. */
  clique: ReturnType<CliqueTestChain['clique']['engine']>;
  /** A producer on `engine` (built from `clique`), not started; the pool's options come with it. */
  producer(engine: SealingEngine, opts?: Omit<ProducerOptions, 'pool'>): BlockProducer;
}

/** A one-signer Clique chain with its pool and a builder that takes every transaction (no price floor). */
export async function openProducerChain(): Promise<ProducerChain> {
  const c = await openCliqueChain(cliqueGenesis([SIGNER.address]));
  opened.push(c);
  const pool = c.services.txPool;
  if (!pool) throw new Error('no pool');
  const clique = c.clique.engine(SIGNER.key, new Uint8Array());
  const builder = new BlockBuilder(c.chain, c.importer, pool, {
    minGasPrice: () => 0n,
    minPriorityFee: () => 0n,
    targetGasLimit: () => undefined,
  });
  const log = { info() {}, warn() {} };
  return {
    c,
    pool,
    clique,
    producer(engine, opts = {}) {
      const producer = new BlockProducer(c.chain, c.importer, builder, engine, log, { ...opts, pool });
      producers.push(producer);
      return producer;
    },
  };
}
