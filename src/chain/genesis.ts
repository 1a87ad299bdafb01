/**
 * Genesis: computes the genesis state root from the allocation, builds the genesis block, and
 * either writes it to an empty database or checks that the database was made for this genesis.
 *
 * The check on a database that has its genesis compares a SHA-256 digest of the genesis input (header
 * fields and allocation) with the one stored beside the genesis hash; only when they differ (or no
 * digest was stored yet) is the state root computed again. Writing a large allocation's trie on every
 * start cost seconds and grew the young generation of the heap to its maximum for good (an idle node
 * serving the bench chain: 122 MB RSS, of which 32 MB young generation with 0.3 MB in use).
 */
import { createHash } from 'node:crypto';
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

/** SHA-256 over the genesis input in a fixed order (bigints in hex, bytes in hex, accounts sorted). */
export function genesisInputDigest(input: GenesisInput, chainId: bigint): Uint8Array {
  const h = createHash('sha256');
  const text = (v: unknown): string =>
    JSON.stringify(v, (_k, x) =>
      typeof x === 'bigint' ? `0x${x.toString(16)}` : x instanceof Uint8Array ? bytesToHex(x) : x,
    );
  h.update(`genesis-input/1 ${chainId}\n`);
  const header = input.header as Record<string, unknown>;
  for (const key of Object.keys(header).sort()) h.update(`${key}=${text(header[key])}\n`);
  for (const address of [...input.alloc.keys()].sort()) {
    const a = input.alloc.get(address) as GenesisAccount;
    h.update(`${address} ${text([a.balance, a.nonce, a.code ?? null, a.storage ?? null])}\n`);
  }
  return new Uint8Array(h.digest());
}

export async function initGenesis(chain: ChainStore, world: WorldState, input: GenesisInput): Promise<Block> {
  const digest = genesisInputDigest(input, chain.common.chainId());
  const known = chain.genesisHash();
  if (known) {
    const storedDigest = chain.genesisInputDigest();
    const stored = storedDigest && bytesEqual(storedDigest, digest) ? chain.getBlock(known) : undefined;
    if (stored) return stored;
  }
  const stateRoot = await world.writeGenesis(input.alloc);
  const header = { ...input.header, stateRoot };
  const block = createBlock(
    { header, withdrawals: chain.common.isActivatedEIP(4895) ? [] : undefined },
    { common: chain.common, setHardfork: true, skipConsensusFormatValidation: true },
  );
  const stored = known;
  if (stored) {
    world.store.discard();
    if (!bytesEqual(stored, block.hash()))
      throw new GenesisMismatchError(bytesToHex(stored), bytesToHex(block.hash()));
    // A database written before the digest was kept: keep it now, the next start skips the trie.
    const batch = chain.newBatch();
    chain.markGenesisInputDigest(batch, digest);
    chain.db.commit(batch);
    return block;
  }
  const batch = chain.newBatch();
  world.store.drainInto(batch);
  chain.putPreimages(batch, genesisPreimages(input.alloc));
  chain.putBlock(batch, block, block.header.difficulty, [], []);
  chain.markGenesis(batch, block.hash());
  chain.markGenesisInputDigest(batch, digest);
  const moved = chain.setHead(batch, block);
  chain.db.commit(batch);
  chain.headCommitted({ head: block, ...moved });
  return block;
}
