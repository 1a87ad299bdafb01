/**
 * Genesis: computes the genesis state root from the allocation, builds the genesis block, and
 * either writes it to an empty database or checks that the database was made for this genesis.
 */
import { type Block, createBlock, type HeaderData } from '@ethereumjs/block';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import type { GenesisAccount, WorldState } from '../state/worldState.js';
import { bytesEqual, type ChainStore } from './chainStore.js';
import { GenesisMismatchError } from './errors.js';

export interface GenesisInput {
  header: HeaderData; // everything but stateRoot
  alloc: Map<string, GenesisAccount>;
}

/** keccak256(key) → key for every genesis address and storage slot. */
function* genesisPreimages(alloc: Map<string, GenesisAccount>): Generator<[Uint8Array, Uint8Array]> {
  for (const [addr, acc] of alloc) {
    const address = hexToBytes((addr.startsWith('0x') ? addr : `0x${addr}`) as `0x${string}`);
    yield [keccak256(address), address];
    for (const [slot] of acc.storage ?? []) yield [keccak256(slot), slot];
  }
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
  chain.putPreimages(batch, genesisPreimages(input.alloc));
  chain.putBlock(batch, block, block.header.difficulty, [], []);
  chain.markGenesis(batch, block.hash());
  const moved = chain.setHead(batch, block);
  chain.db.commit(batch);
  chain.headCommitted({ head: block, ...moved });
  return block;
}
