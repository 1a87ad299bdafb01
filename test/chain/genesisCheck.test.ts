/**
 * The genesis check on a database that has its genesis: the digest of the genesis input stored beside
 * the genesis hash spares the state trie on a restart with the same genesis; a changed allocation is
 * still refused; a database written before the digest existed gets it on its next start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/chain/chainStore.js';
import { GenesisMismatchError } from '../../src/chain/errors.js';
import { type GenesisInput, initGenesis } from '../../src/chain/genesis.js';
import { createCommon, genesisHeaderFields } from '../../src/config/genesis.js';
import { loadConfig } from '../../src/config/load.js';
import { Database } from '../../src/db/database.js';
import { TrieStore } from '../../src/state/trieStore.js';
import { type GenesisAccount, WorldState } from '../../src/state/worldState.js';

const dir = mkdtempSync(join(tmpdir(), 'alder-genesis-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = loadConfig(['--network=dev', `--data-path=${dir}`], {});
const common = createCommon(config.genesis);

function input(extraWei = 0n): GenesisInput {
  const alloc = new Map<string, GenesisAccount>();
  for (const [address, acc] of config.genesis.alloc) alloc.set(address, { ...acc });
  const first = [...alloc.keys()][0] as string;
  const acc = alloc.get(first) as GenesisAccount;
  alloc.set(first, { ...acc, balance: acc.balance + extraWei });
  return { header: genesisHeaderFields(config.genesis), alloc };
}

async function withChain<T>(
  path: string,
  f: (chain: ChainStore, world: WorldState) => Promise<T>,
): Promise<T> {
  const db = Database.open(path);
  try {
    return await f(new ChainStore(db, common), new WorldState(new TrieStore(db), common));
  } finally {
    await db.close();
  }
}

describe('genesis check on restart', () => {
  it('skips the state trie when the input digest matches, refuses another allocation', async () => {
    const path = join(dir, 'a');
    const first = await withChain(path, (chain, world) => initGenesis(chain, world, input()));
    await withChain(path, async (chain, world) => {
      expect(chain.genesisInputDigest()).toBeDefined();
      let trieWrites = 0;
      const write = world.writeGenesis.bind(world);
      world.writeGenesis = (alloc) => {
        trieWrites++;
        return write(alloc);
      };
      const again = await initGenesis(chain, world, input());
      expect(again.hash()).toEqual(first.hash());
      expect(trieWrites).toBe(0);
      await expect(initGenesis(chain, world, input(1n))).rejects.toBeInstanceOf(GenesisMismatchError);
      expect(trieWrites).toBe(1);
    });
  });

  it('stores the digest on a database that lacks it', async () => {
    const path = join(dir, 'b');
    const first = await withChain(path, async (chain, world) => {
      const block = await initGenesis(chain, world, input());
      const batch = chain.newBatch();
      batch.del('meta', new TextEncoder().encode('genesisInput'));
      chain.db.commit(batch);
      return block;
    });
    await withChain(path, async (chain, world) => {
      expect(chain.genesisInputDigest()).toBeUndefined();
      expect((await initGenesis(chain, world, input())).hash()).toEqual(first.hash());
      expect(chain.genesisInputDigest()).toBeDefined();
    });
  });
});
