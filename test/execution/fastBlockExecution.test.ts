/**
 * Block execution on the call interpreter (`execution/fastCall/blockCall.ts`): the rpc-compat chain
 * (Frontier → Osaka: transfers, contract creations, logs, reverts, blobs, delegations) imported twice
 * into real LMDB databases, once with transaction messages on the interpreter where it can run them
 * and once all on the library's EVM. Both reach the recorded head with byte-identical receipts, the
 * interpreter ran the messages of the forks it implements, and what it left fell back cleanly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/chain/chainStore.js';
import { initGenesis } from '../../src/chain/genesis.js';
import { readBlockFile } from '../../src/chain/rlpFile.js';
import { createCommon, genesisHeaderFields, loadGenesisFile } from '../../src/config/genesis.js';
import { createConsensusEngine } from '../../src/consensus/factory.js';
import { customCrypto } from '../../src/crypto/index.js';
import { Database } from '../../src/db/database.js';
import { BlockImporter } from '../../src/execution/importer.js';
import { TrieStore } from '../../src/state/trieStore.js';
import { WorldState } from '../../src/state/worldState.js';
import { RPC_COMPAT_CHAIN } from '../helpers/conformance.js';

interface Imported {
  dir: string;
  db: Database;
  chain: ChainStore;
  importer: BlockImporter;
}

async function importChain(useInterpreter: boolean): Promise<{ node: Imported; blocks: Block[] }> {
  const spec = loadGenesisFile(RPC_COMPAT_CHAIN.genesis);
  const common = createCommon(spec, { customCrypto: customCrypto() });
  const dir = mkdtempSync(join(tmpdir(), 'alder-fastblock-'));
  const db = Database.open(join(dir, 'database'));
  const world = new WorldState(new TrieStore(db), common);
  const chain = new ChainStore(db, common);
  await initGenesis(chain, world, { header: genesisHeaderFields(spec), alloc: spec.alloc });
  const engine = createConsensusEngine(spec, { chain, dataPath: dir, customCrypto: customCrypto() });
  const importer = new BlockImporter(chain, world, engine, { skipPowValidation: true });
  importer.processor.useInterpreter = useInterpreter;
  const blocks = [...readBlockFile(RPC_COMPAT_CHAIN.blocks)].map(({ rlp }) =>
    createBlockFromRLP(rlp, { common, setHardfork: true }),
  );
  for (const block of blocks) expect(await importer.importBlock(block)).toBe('imported');
  return { node: { dir, db, chain, importer }, blocks };
}

describe('block execution on the call interpreter', () => {
  let fast: Imported;
  let library: Imported;
  let blocks: Block[];

  beforeAll(async () => {
    const a = await importChain(true);
    fast = a.node;
    blocks = a.blocks;
    library = (await importChain(false)).node;
  }, 120_000);

  afterAll(async () => {
    for (const n of [fast, library]) {
      if (!n) continue;
      await n.importer.idle();
      await n.db.close();
      rmSync(n.dir, { recursive: true, force: true });
    }
  });

  it('imports the chain to the same head with byte-identical receipts', () => {
    const head = fast.chain.head();
    expect(head.number).toBe(BigInt(blocks.length));
    expect(Buffer.from(head.hash)).toEqual(Buffer.from(library.chain.head().hash));
    for (const block of blocks) {
      const hash = block.hash();
      const ours = fast.chain.getRawReceipts(hash);
      expect(ours?.length).toBe(block.transactions.length);
      expect(ours).toEqual(library.chain.getRawReceipts(hash));
    }
  });

  it('runs the messages of Berlin and later on the interpreter, and none when switched off', () => {
    const stats = fast.importer.processor.interpreterStats;
    const later = blocks
      .filter((b) => b.common.gteHardfork(Hardfork.Berlin))
      .reduce((n, b) => n + b.transactions.length, 0);
    expect(stats).toBeDefined();
    expect(later).toBeGreaterThan(0);
    // Every message of those forks ran on the interpreter or fell back for a stated reason.
    expect((stats?.fast ?? 0) + (stats?.fallback ?? 0)).toBe(later);
    expect(stats?.fast).toBeGreaterThan(later / 2);
    const off = library.importer.processor.interpreterStats;
    expect(off?.fast).toBe(0);
    expect(off?.fallback).toBe(0);
  });
});
