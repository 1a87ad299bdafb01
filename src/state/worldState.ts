/**
 * World state views. Every block's state root stays readable (archive), so a view is just a
 * state manager over the shared trie store, opened at a root.
 */
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, ValueEncoding, bytesToBigInt, createAddressFromString } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import type { TrieStore } from './trieStore.js';

export interface GenesisAccount {
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  storage?: Array<[Uint8Array, Uint8Array]>; // 32-byte slot → value bytes
}

export class WorldState {
  constructor(
    readonly store: TrieStore,
    private readonly common: Common,
  ) {}

  newTrie(root?: Uint8Array): MerklePatriciaTrie {
    return new MerklePatriciaTrie({
      db: this.store,
      useKeyHashing: true,
      useKeyHashingFunction: keccak256,
      valueEncoding: ValueEncoding.Bytes,
      root,
      common: this.common,
    });
  }

  /** A state manager at `root`; `cached` adds account/storage/code caches (for block import). */
  open(root: Uint8Array | undefined, cached = false): MerkleStateManager {
    return new MerkleStateManager({
      trie: this.newTrie(root),
      common: this.common,
      caches: cached ? new Caches() : undefined,
    });
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
