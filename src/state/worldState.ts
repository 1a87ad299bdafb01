/**
 * World state views. Every block's state root stays readable (archive), so a view is just a
 * state manager over the shared trie store, opened at a root.
 */
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, CacheType, MerkleStateManager } from '@ethereumjs/statemanager';
import {
  Account,
  Address,
  bytesToBigInt,
  bytesToHex,
  createAddressFromString,
  ValueEncoding,
} from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { Lru } from '../util/lru.js';
import type { TrieStore } from './trieStore.js';

export interface GenesisAccount {
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  storage?: Array<[Uint8Array, Uint8Array]>; // 32-byte slot → value bytes
}

export class WorldState {
  /** Read-only state managers by state root, most recently used last. */
  private readonly readers = new Lru<string, MerkleStateManager>(16);

  constructor(
    readonly store: TrieStore,
    private readonly common: Common,
  ) {}

  /** The state trie at `root`; `cacheSize` keeps that many nodes it has read (read-only use). */
  newTrie(root?: Uint8Array, cacheSize?: number): MerklePatriciaTrie {
    return new MerklePatriciaTrie({
      db: this.store,
      useKeyHashing: true,
      useKeyHashingFunction: keccak256,
      valueEncoding: ValueEncoding.Bytes,
      root,
      common: this.common,
      cacheSize,
    });
  }

  /**
   * A state manager at `root`; `caches` (or `true` for new ones) keeps accounts, storage and code
   * between blocks (block import and building).
   */
  open(root: Uint8Array | undefined, caches: Caches | boolean = false): MerkleStateManager {
    return new MerkleStateManager({
      trie: this.newTrie(root),
      common: this.common,
      caches: caches === true ? new Caches() : caches === false ? undefined : caches,
    });
  }

  /**
   * A shared, read-only state manager at `root` (for queries: never write through it). Keeps the
   * trie nodes it has read, and the accounts, slots and code decoded from them (bounded LRU caches:
   * a fixed root never changes, so nothing needs invalidating), so repeated reads of the same block's
   * state skip the trie walk, LMDB and RLP decoding.
   */
  reader(root: Uint8Array): MerkleStateManager {
    const key = bytesToHex(root);
    let sm = this.readers.get(key);
    if (!sm) {
      sm = new MerkleStateManager({
        trie: this.newTrie(root, 4096),
        common: this.common,
        caches: new Caches({
          account: { type: CacheType.LRU, size: 20_000 },
          storage: { type: CacheType.LRU, size: 20_000 },
          code: { type: CacheType.LRU, size: 1_000 },
        }),
      });
      this.readers.set(key, sm);
    }
    return sm;
  }

  /** Writes the genesis allocation and returns its state root. */
  async writeGenesis(alloc: Map<string, GenesisAccount>): Promise<Uint8Array> {
    const sm = this.open(undefined);
    for (const [addr, acc] of alloc) {
      const address = createAddressFromString(addr);
      await sm.putAccount(address, new Account(acc.nonce, acc.balance));
      if (acc.code && acc.code.length > 0) await sm.putCode(address, acc.code);
      for (const [slot, value] of acc.storage ?? []) {
        if (bytesToBigInt(value) !== 0n) await sm.putStorage(address, slot, value);
      }
    }
    await sm.flush();
    return sm.getStateRoot();
  }
}

export { Address };
