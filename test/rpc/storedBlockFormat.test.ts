/**
 * Blocks formatted from their stored RLP (`formatStoredBlock`, what eth_getBlockBy* answers from) must
 * be byte for byte what the decoded block formats to (`formatBlock`), for every block and transaction
 * type of the rpc-compat chain (legacy to EIP-7702, blobs, withdrawals) and Besu's test chain (uncles).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBlock, formatStoredBlock } from '../../src/rpc/format/block.js';
import { CONFORMANCE, openTestChain, type TestChain } from '../methods/chain.js';

for (const [name, genesis, blocks] of [
  ['rpc-compat', 'rpc-compat/genesis.json', 'rpc-compat/chain.rlp'],
  ['Besu test chain', 'besu/chain-data/hive/testGenesis.json', 'besu/chain-data/hive/testBlockchain.blocks'],
] as const) {
  describe(`stored block formatting: ${name}`, () => {
    let chain: TestChain;
    beforeAll(async () => {
      chain = await openTestChain({ genesis: join(CONFORMANCE, genesis), blocks: join(CONFORMANCE, blocks) });
    });
    afterAll(async () => {
      await chain?.close();
    });

    it('matches the decoded block for every block, with hashes and with full transactions', () => {
      const { chain: store, blockFormat } = chain.services;
      const head = store.head().number;
      const types = new Set<string>();
      let uncles = 0;
      for (let n = 0n; n <= head; n++) {
        const hash = store.canonicalHash(n) as Uint8Array;
        const block = store.getBlock(hash);
        if (block === undefined) throw new Error(`block ${n} missing`);
        uncles += block.uncleHeaders.length;
        for (const tx of block.transactions) types.add(String(tx.type));
        for (const full of [false, true]) {
          const stored = formatStoredBlock(store, hash, full, blockFormat);
          expect(stored, `block ${n}`).toBeDefined();
          expect(JSON.stringify(stored), `block ${n} full=${full}`).toBe(
            JSON.stringify(formatBlock(block, full, store, blockFormat)),
          );
        }
      }
      if (name === 'rpc-compat') expect([...types].sort()).toEqual(['0', '1', '2', '3', '4']);
      else expect(uncles).toBeGreaterThan(0);
    });
  });
}
