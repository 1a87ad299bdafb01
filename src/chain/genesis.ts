/**
 * Genesis: computes the genesis state root from the allocation, builds the genesis block, and
 * either writes it to an empty database or checks that the database was made for this genesis.
 */
import { type Block, createBlock, type HeaderData } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { GenesisAccount, WorldState } from '../state/worldState.js';
import { bytesEqual, type ChainStore } from './chainStore.js';
import { GenesisMismatchError } from './errors.js';

export interface GenesisInput {
  header: HeaderData; // everything but stateRoot
  alloc: Map<string, GenesisAccount>;
}

export async function initGenesis(chain: ChainStore, world: WorldState, input: GenesisInput): Promise<Block> {
  const stateRoot = await world.writeGenesis(input.alloc);
  const header = { ...input.header, stateRoot };
  const block = createBlock(
    { header, withdrawals: chain.common.isActivatedEIP(4895) ? [] : undefined },
    { common: chain.common, setHardfork: true, skipConsensusFormatValidation: true },
  );
  const stored = chain.genesisHash();
  if (stored) {
    world.store.discard();
    if (!bytesEqual(stored, block.hash()))
      throw new GenesisMismatchError(bytesToHex(stored), bytesToHex(block.hash()));
    return block;
  }
  const batch = chain.newBatch();
  world.store.drainInto(batch);
  chain.putBlock(batch, block, block.header.difficulty, [], []);
  chain.markGenesis(batch, block.hash());
  const moved = chain.setHead(batch, block);
  chain.db.commit(batch);
  chain.headCommitted({ head: block, ...moved });
  return block;
}
