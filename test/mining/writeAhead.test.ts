/**
 * A built block's state writes handed to the commit thread before it is sealed
 * (`BlockImporter.writeAhead`): they are on disk before the block is stored, while the head and the
 * block stay as they were; the block then stores with only its own records, and another node importing
 * it reaches the same head. A block abandoned after writing ahead leaves the chain as it was: the block
 * built again in its place stores and imports the same way.
 */
import { describe, expect, it } from 'vitest';
import { BlockBuilder } from '../../src/mining/builder.js';
import { bytesToHexKey, TrieStore } from '../../src/state/trieStore.js';
import { type CliqueTestChain, cliqueChainsOf, fundedTransfer, testKey } from '../clique/helpers.js';

const SIGNER = testKey('a');

const open = cliqueChainsOf(SIGNER);

function builderOf(c: CliqueTestChain): BlockBuilder {
  return new BlockBuilder(c.chain, c.importer, c.services.txPool, {
    minGasPrice: () => 0n,
    minPriorityFee: () => 0n,
    targetGasLimit: () => undefined,
  });
}

describe('writing a built block state ahead of its seal', () => {
  it('puts the state on disk first, stores the block after, and an abandoned block changes nothing', async () => {
    const c = await open();
    const other = await open();
    const pool = c.services.txPool;
    if (!pool) throw new Error('no pool');
    for (let nonce = 0; nonce < 20; nonce++) await pool.add(fundedTransfer(c, nonce), true);
    const engine = c.clique.engine(SIGNER.key, new Uint8Array());
    const builder = builderOf(c);
    const parent = c.chain.headHeader();

    // Built, written ahead, then abandoned: the head, the block and the pool are as they were.
    const abandoned = await builder.build(parent, engine, parent.timestamp + 1n);
    expect(abandoned.txCount).toBe(20);
    const root = abandoned.block.header.stateRoot;
    expect(new TrieStore(c.chain.db).getSync(bytesToHexKey(root))).toBeUndefined();
    c.importer.writeAhead(abandoned.execution);
    expect(abandoned.execution.stateWrites.size).toBe(0);
    await abandoned.execution.writtenAhead;
    // Readable by a reader with no pending writes of its own: it is in the database.
    expect(new TrieStore(c.chain.db).getSync(bytesToHexKey(root))).toBeDefined();
    expect(c.chain.headHeader().number).toBe(0n);
    expect(pool.size).toBe(20);

    // Built again on the same parent, written ahead, sealed and stored.
    const built = await builder.build(parent, engine, parent.timestamp + 1n);
    c.importer.writeAhead(built.execution);
    const sealed = await engine.seal(built.block, new AbortController().signal);
    if (!sealed) throw new Error('not sealed');
    expect(await c.importer.commitBuilt(sealed, built.execution)).toBe('imported');
    expect(c.chain.headHeader().hash()).toEqual(sealed.hash());
    await pool.settled();
    expect(pool.size).toBe(0);
    // Another node executes the block and reaches the same state root and head.
    expect(await other.importer.importBlock(sealed)).toBe('imported');
    expect(other.chain.headHeader().hash()).toEqual(sealed.hash());
  });
});
