/**
 * The block processor on the rpc-compat chain (Frontier → Osaka, real LMDB): import with a tracer, and
 * replays over an overlay. A replay stopped before transaction k sees the pre-state the import saw at
 * that point, a full replay re-checks every commitment and ends on the block's own post-state, and the
 * database is byte-identical before and after (no node of a replay reaches LMDB or the write path's
 * pending set).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/chain/chainStore.js';
import { initGenesis } from '../../src/chain/genesis.js';
import { readBlockFile } from '../../src/chain/rlpFile.js';
import { createCommon, genesisHeaderFields, loadGenesisFile } from '../../src/config/genesis.js';
import { createConsensusEngine } from '../../src/consensus/factory.js';
import { customCrypto } from '../../src/crypto/index.js';
import { Database, STORES } from '../../src/db/database.js';
import { BlockImporter } from '../../src/execution/importer.js';
import type { BlockTracer } from '../../src/execution/tracer.js';
import { TrieStore } from '../../src/state/trieStore.js';
import { WorldState } from '../../src/state/worldState.js';
import { RPC_COMPAT_CHAIN } from '../helpers/conformance.js';

interface AccountView {
  nonce: bigint;
  balance: bigint;
  code: string;
}

async function accountsOf(vm: VM, addresses: Address[]): Promise<AccountView[]> {
  const out: AccountView[] = [];
  for (const a of addresses) {
    const acc = await vm.stateManager.getAccount(a);
    const code = await vm.stateManager.getCode(a);
    out.push({
      nonce: acc?.nonce ?? 0n,
      balance: acc?.balance ?? 0n,
      code: Buffer.from(code).toString('hex'),
    });
  }
  return out;
}

function watched(block: Block, tx: TypedTransaction): Address[] {
  const list = [tx.getSenderAddress(), block.header.coinbase];
  if (tx.to) list.push(tx.to);
  return list;
}

/** Entry count and a hash over every key and value of every store. */
function fingerprint(db: Database): string {
  const h = createHash('sha256');
  let entries = 0;
  for (const store of STORES) {
    h.update(store);
    for (const { key, value } of db.range(store)) {
      h.update(key);
      h.update(value);
      entries++;
    }
  }
  return `${entries}:${h.digest('hex')}`;
}

describe('block processor', () => {
  let dir: string;
  let db: Database;
  let chain: ChainStore;
  let world: WorldState;
  let importer: BlockImporter;
  /** The block with the most transactions, the transaction index inspected, and what import saw there. */
  let target: Block;
  let k: number;
  let seenAtImport: AccountView[] | undefined;
  const txEvents: string[] = [];
  let steps = 0;

  beforeAll(async () => {
    const spec = loadGenesisFile(RPC_COMPAT_CHAIN.genesis);
    const common = createCommon(spec, { customCrypto: customCrypto() });
    dir = mkdtempSync(join(tmpdir(), 'alder-processor-'));
    db = Database.open(join(dir, 'database'));
    world = new WorldState(new TrieStore(db), common);
    chain = new ChainStore(db, common);
    await initGenesis(chain, world, { header: genesisHeaderFields(spec), alloc: spec.alloc });
    const engine = createConsensusEngine(spec, { chain, dataPath: dir, customCrypto: customCrypto() });
    importer = new BlockImporter(chain, world, engine, { skipPowValidation: true });
    const blocks = [...readBlockFile(RPC_COMPAT_CHAIN.blocks)].map(({ rlp }) =>
      createBlockFromRLP(rlp, { common, setHardfork: true }),
    );
    target = blocks.reduce((best, b) => (b.transactions.length > best.transactions.length ? b : best));
    k = Math.floor(target.transactions.length / 2);
    const tracer: BlockTracer = {
      async onTxStart(tx, index, vm) {
        txEvents.push(`start ${index}`);
        if (index === k) seenAtImport = await accountsOf(vm, watched(target, tx));
      },
      onTxEnd(_tx, index, result) {
        txEvents.push(`end ${index} ${result.totalGasSpent > 0n}`);
      },
      onStep() {
        steps++;
      },
    };
    for (const block of blocks) await importer.importBlock(block, block === target ? tracer : undefined);
  }, 120_000);

  afterAll(async () => {
    await importer?.idle();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports the whole chain to the recorded head', () => {
    expect(chain.head().number).toBe(54n);
    expect(target.transactions.length).toBeGreaterThan(1);
  });

  it('calls the tracer for every transaction of a traced import, and for EVM steps', () => {
    const n = target.transactions.length;
    expect(txEvents.length).toBe(2 * n);
    for (let i = 0; i < n; i++) {
      expect(txEvents[2 * i]).toBe(`start ${i}`);
      expect(txEvents[2 * i + 1]).toBe(`end ${i} true`);
    }
    expect(seenAtImport).toBeDefined();
    expect(steps).toBeGreaterThan(0);
  });

  it('replays up to transaction k onto the pre-state the import computed, writing nothing', async () => {
    const before = fingerprint(db);
    const tx = target.transactions[k] as TypedTransaction;
    const seen = await importer.processor.replay(target, {
      stopBeforeTx: k,
      inspect: (vm) => accountsOf(vm, watched(target, tx)),
    });
    expect(seen).toEqual(seenAtImport);
    // A second replay of an earlier point gives an earlier state (the sender's nonce is lower).
    const first = await importer.processor.replay(target, {
      stopBeforeTx: 0,
      inspect: (vm) => accountsOf(vm, [tx.getSenderAddress()]),
    });
    expect(first?.[0]?.nonce).toBeLessThanOrEqual(seen?.[0]?.nonce ?? 0n);
    expect(fingerprint(db)).toBe(before);
    // Nothing was left in the write path's pending set either.
    const batch = chain.newBatch();
    world.store.drainInto(batch);
    expect(batch.size).toBe(0);
  });

  it('replays a whole block, re-checking its commitments, onto its own post-state', async () => {
    const before = fingerprint(db);
    const coinbase = target.header.coinbase;
    const after = await importer.processor.replay(target, {
      inspect: async (vm) => (await vm.stateManager.getAccount(coinbase))?.balance,
    });
    const stored = await world.reader(target.header.stateRoot).getAccount(coinbase);
    expect(after).toBe(stored?.balance);
    expect(fingerprint(db)).toBe(before);
  });

  it('refuses a transaction index the block does not have', async () => {
    await expect(
      importer.processor.replay(target, { stopBeforeTx: target.transactions.length }),
    ).rejects.toThrow(RangeError);
  });

  it('keeps importing after replays: the warm import state is untouched', async () => {
    // Re-importing a known block is a no-op; the chain and its head are unchanged.
    expect(await importer.importBlock(target)).toBe('known');
    expect(chain.head().number).toBe(54n);
  });
});
