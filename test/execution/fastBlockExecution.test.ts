/**
 * Block execution on the call interpreter (`execution/fastCall/blockCall.ts`): the rpc-compat chain
 * (Frontier → Osaka: transfers, contract creations, logs, reverts, blobs, delegations) imported into
 * a real LMDB database with transaction messages on the interpreter where it can run them. Every
 * block passes the import's checks (state root, receipts root, bloom, gas used: the receipts are the
 * recorded ones), the interpreter ran the messages of the forks it implements, what it left fell back
 * for a stated reason, and switched off it runs nothing.
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

async function importChain(
  useInterpreter: boolean,
  count = Number.POSITIVE_INFINITY,
): Promise<{ node: Imported; blocks: Block[] }> {
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
  const blocks = [...readBlockFile(RPC_COMPAT_CHAIN.blocks)]
    .slice(0, count)
    .map(({ rlp }) => createBlockFromRLP(rlp, { common, setHardfork: true }));
  for (const block of blocks) expect(await importer.importBlock(block)).toBe('imported');
  return { node: { dir, db, chain, importer }, blocks };
}

describe('block execution on the call interpreter', () => {
  let node: Imported;
  let blocks: Block[];

  beforeAll(async () => {
    ({ node, blocks } = await importChain(true));
  }, 120_000);

  afterAll(async () => {
    if (!node) return;
    await node.importer.idle();
    await node.db.close();
    rmSync(node.dir, { recursive: true, force: true });
  });

  it('imports the chain to its recorded head with the recorded receipts', () => {
    const head = node.chain.head();
    const last = blocks[blocks.length - 1];
    expect(head.number).toBe(last.header.number);
    expect(Buffer.from(head.hash)).toEqual(Buffer.from(last.hash()));
    for (const block of blocks) {
      expect(node.chain.getRawReceipts(block.hash())?.length).toBe(block.transactions.length);
    }
  });

  it('runs the messages of Berlin and later on the interpreter', () => {
    const stats = node.importer.processor.interpreterStats;
    const later = blocks
      .filter((b) => b.common.gteHardfork(Hardfork.Berlin))
      .reduce((n, b) => n + b.transactions.length, 0);
    expect(stats).toBeDefined();
    expect(later).toBeGreaterThan(0);
    // Every message of those forks ran on the interpreter or fell back for a stated reason.
    expect((stats?.fast ?? 0) + (stats?.fallback ?? 0)).toBe(later);
    let reasons = 0;
    for (const n of stats?.reasons.values() ?? []) reasons += n;
    expect(reasons).toBe(stats?.fallback);
    expect(stats?.fast).toBeGreaterThan(later / 2);
  });

  it('runs nothing on the interpreter when switched off', async () => {
    const { node: off } = await importChain(false, 30);
    try {
      expect(off.chain.head().number).toBe(30n);
      const stats = off.importer.processor.interpreterStats;
      expect(stats?.fast).toBe(0);
      expect(stats?.fallback).toBe(0);
    } finally {
      await off.importer.idle();
      await off.db.close();
      rmSync(off.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
