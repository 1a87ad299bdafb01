/**
 * World state. Every block's state root stays readable (archive): `at(root)` is the one read path
 * into the state of a block (synchronous, memoised reads; see `stateSnapshot.ts`), `open(root)` a
 * state manager for writing a block's changes.
 */
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager';
import {
  Account,
  Address,
  bytesToBigInt,
  createAddressFromString,
  equalsBytes,
  KECCAK256_RLP,
  ValueEncoding,
} from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { Lru } from '../util/lru.js';
import { BlockState } from './blockState.js';
import { FlatState } from './flatState.js';
import { ContentCache, StateSnapshot } from './stateSnapshot.js';
import { bytesToHexKey, type TrieStore } from './trieStore.js';

export interface GenesisAccount {
  balance: bigint;
  nonce: bigint;
  code?: Uint8Array;
  storage?: Array<[Uint8Array, Uint8Array]>; // 32-byte slot → value bytes
}

/** State roots whose snapshots are kept (their accounts stay memoised while they are). */
const MAX_SNAPSHOTS = 8;

export class WorldState {
  /** Committed state by state root, most recently used last. */
  private readonly snapshots = new Lru<string, StateSnapshot>(MAX_SNAPSHOTS);
  private last: StateSnapshot | undefined;
  /** Storage and code shared by every snapshot. */
  readonly content: ContentCache;
  /** The head state's flat tables. */
  readonly flat: FlatState;

  constructor(
    readonly store: TrieStore,
    private readonly common: Common,
  ) {
    this.content = new ContentCache(store);
    this.flat = new FlatState(store.db, store);
  }

  /**
   * The committed state at `root` (a block's state root): synchronous reads, memoised for as long as
   * the snapshot is kept. Read-only; the root must be one the store holds.
   */
  /** Whether the state at `root` is stored (its root node, or the empty trie). */
  hasState(root: Uint8Array): boolean {
    return equalsBytes(root, KECCAK256_RLP) || this.store.getSync(bytesToHexKey(root)) !== undefined;
  }

  at(root: Uint8Array): StateSnapshot {
    // Reads come in runs at one root (mostly the head's): the last one answers without a key.
    const last = this.last;
    if (last !== undefined && (last.stateRoot === root || equalsBytes(last.stateRoot, root))) return last;
    const key = Buffer.from(root.buffer, root.byteOffset, root.length).toString('hex');
    let snapshot = this.snapshots.get(key);
    if (!snapshot) {
      snapshot = new StateSnapshot(this.content, root.slice(), this.flat);
      this.snapshots.set(key, snapshot);
    }
    this.last = snapshot;
    return snapshot;
  }

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
   * The state blocks execute on (import and the builder), positioned on `root`: writes grouped per
   * block, their trie nodes pending in the store until the block's transaction takes them.
   */
  openBlockState(root: Uint8Array): BlockState {
    return new BlockState(this.store, (r) => this.at(r), root);
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
