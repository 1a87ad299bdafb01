/**
 * Flat tables of one state (the canonical head's): every account by the hash of its address, every
 * storage slot by the hashes of its address and slot, each read with one LMDB lookup instead of a
 * walk down the trie. The tables name the state root they hold (`flatRoot` in `meta`); a read at any
 * other root goes to the trie, so the tables are never wrong, only sometimes not the ones asked.
 *
 * They move with the head: a block that extends the head writes its changes into the tables in the
 * block's own transaction. Any other move of the head (a reorganisation) and a data directory whose
 * tables do not name its head's root (written before the tables existed, or stopped between a
 * reorganisation and the rebuild) rebuild them from the head's trie, in one transaction.
 * Keys are hashed, as in the trie, so that they can be rebuilt from it.
 */
import { RLP } from '@ethereumjs/rlp';
import { type Account, createAccountFromRLP, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { type Database, metaKey, WriteBatch } from '../db/database.js';
import {
  rlpListSize,
  rlpStringSize,
  rlpStringSizeOf,
  writeRlpHeader,
  writeRlpString,
} from '../util/rlpWrite.js';
import { trieEntriesSync, trieGetHashedSync } from './syncTrie.js';
import type { TrieStore } from './trieStore.js';

const FLAT_ROOT = metaKey('flatRoot');
const EMPTY = new Uint8Array(0);
/** Writes per transaction while rebuilding (bounds the memory of one batch). */
const REBUILD_BATCH = 50_000;

/** What one block changed, by hashed keys (see `BlockState.commitBlock`). */
export interface StateChanges {
  /** Hashed address → the account's trie leaf (RLP), or empty when the account was removed. */
  accounts: Array<[Uint8Array, Uint8Array]>;
  /** Hashed addresses whose storage was wiped before the block's slot writes. */
  cleared: Uint8Array[];
  /** Hashed address, hashed slot, value (leading zeros stripped; empty when unset). */
  storage: Array<[Uint8Array, Uint8Array, Uint8Array]>;
}

function slotKey(hashedAddress: Uint8Array, hashedSlot: Uint8Array): Uint8Array {
  const key = new Uint8Array(64);
  key.set(hashedAddress);
  key.set(hashedSlot, 32);
  return key;
}

function rangeEnd(hashedAddress: Uint8Array): Uint8Array {
  const end = new Uint8Array(64);
  end.set(hashedAddress);
  end.fill(0xff, 32);
  return end;
}

/** Entries written so far by `rebuild`. */
export interface RebuildProgress {
  accounts: number;
  slots: number;
}

/** `rebuild` reports its progress every this many accounts or slots. */
const PROGRESS_EVERY = 10_000;

export class FlatState {
  private flatRoot: Uint8Array | undefined;

  constructor(
    private readonly db: Database,
    private readonly store: TrieStore,
  ) {
    const root = db.get('meta', FLAT_ROOT);
    this.flatRoot = root === undefined ? undefined : root.slice();
  }

  /** The state root the tables hold, if any. */
  get root(): Uint8Array | undefined {
    return this.flatRoot;
  }

  isAt(root: Uint8Array): boolean {
    const r = this.flatRoot;
    return r !== undefined && (r === root || equalsBytes(r, root));
  }

  /** The account at a 20-byte address (call only while `isAt` the state asked). */
  account(address: Uint8Array): Account | undefined {
    const rlp = this.db.get('flatAccounts', keccak256(address));
    return rlp === undefined ? undefined : createAccountFromRLP(rlp);
  }

  /** A slot (32-byte key) of the account at a 20-byte address, leading zeros stripped. */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.db.get('flatStorage', slotKey(this.hashedAddress(address), keccak256(slot))) ?? EMPTY;
  }

  /** The last address whose slots were read and its hash (a contract's slots are read in runs). */
  private lastAddress = new Uint8Array(20);
  private lastHashed: Uint8Array | undefined;

  private hashedAddress(address: Uint8Array): Uint8Array {
    const last = this.lastHashed;
    if (last !== undefined && equalsBytes(address, this.lastAddress)) return last;
    const hashed = keccak256(address);
    if (address.length === 20) {
      this.lastAddress.set(address);
      this.lastHashed = hashed;
    }
    return hashed;
  }

  /**
   * Puts a block's changes into `batch`, moving the tables from the block's parent state to `root`;
   * `moved` is to be called once the batch is committed.
   */
  apply(batch: WriteBatch, changes: StateChanges, root: Uint8Array): void {
    for (const hashed of changes.cleared) {
      for (const { key } of this.db.range(
        'flatStorage',
        slotKey(hashed, new Uint8Array(32)),
        rangeEnd(hashed),
      ))
        batch.del('flatStorage', key);
    }
    for (const [hashed, leaf] of changes.accounts) {
      if (leaf.length === 0) batch.del('flatAccounts', hashed);
      else batch.put('flatAccounts', hashed, leaf);
    }
    for (const [hashed, slot, value] of changes.storage) {
      if (value.length === 0) batch.del('flatStorage', slotKey(hashed, slot));
      else batch.put('flatStorage', slotKey(hashed, slot), value);
    }
    batch.put('meta', FLAT_ROOT, root);
  }

  /** The keys a block changed, as stored beside it for reorganisations (see `catchUp`). */
  static encodeKeys(changes: StateChanges): Uint8Array {
    // `RLP.encode([accounts, cleared, storage.map(slotKey)])`, sized first and written once (the
    // generic encoder took 11-16 ms for a 4,000-transaction block, on the main thread).
    let accounts = 0;
    for (const [hashed] of changes.accounts) accounts += rlpStringSize(hashed);
    let cleared = 0;
    for (const hashed of changes.cleared) cleared += rlpStringSize(hashed);
    let storage = 0;
    for (const [hashed, slot] of changes.storage) storage += rlpStringSizeOf(hashed.length + slot.length);
    const payload = rlpListSize(accounts) + rlpListSize(cleared) + rlpListSize(storage);
    const out = new Uint8Array(rlpListSize(payload));
    let at = writeRlpHeader(out, 0, payload, true);
    at = writeRlpHeader(out, at, accounts, true);
    for (const [hashed] of changes.accounts) at = writeRlpString(out, at, hashed);
    at = writeRlpHeader(out, at, cleared, true);
    for (const hashed of changes.cleared) at = writeRlpString(out, at, hashed);
    at = writeRlpHeader(out, at, storage, true);
    for (const [hashed, slot] of changes.storage) {
      // The 64-byte key (slotKey) as one string: its header, then both halves.
      at = writeRlpHeader(out, at, hashed.length + slot.length, false);
      out.set(hashed, at);
      out.set(slot, at + hashed.length);
      at += hashed.length + slot.length;
    }
    return out;
  }

  /**
   * Moves the tables from the state they hold to `root` after a reorganisation, rewriting only what
   * the blocks taken off and put on the canonical chain changed (`keys`: their `encodeKeys`), read
   * from the trie at `root` (committed). One transaction.
   */
  catchUp(root: Uint8Array, keys: Uint8Array[]): void {
    const accounts = new Map<string, Uint8Array>();
    const cleared = new Map<string, Uint8Array>();
    const slots = new Map<string, Uint8Array>();
    const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
    for (const encoded of keys) {
      const [a, c, s] = RLP.decode(encoded) as unknown as Uint8Array[][];
      for (const k of a) accounts.set(hex(k), k);
      for (const k of c) cleared.set(hex(k), k);
      for (const k of s) slots.set(hex(k), k);
    }
    const load = this.store.load;
    const batch = new WriteBatch();
    const storageRoots = new Map<string, Uint8Array>();
    const storageRootOf = (hashed: Uint8Array): Uint8Array => {
      const key = hex(hashed);
      let r = storageRoots.get(key);
      if (r === undefined) {
        const leaf = trieGetHashedSync(load, root, hashed);
        r = leaf === null ? KECCAK256_RLP : (RLP.decode(leaf) as Uint8Array[])[2];
        storageRoots.set(key, r);
      }
      return r;
    };
    for (const hashed of accounts.values()) {
      const leaf = trieGetHashedSync(load, root, hashed);
      if (leaf === null) batch.del('flatAccounts', hashed);
      else batch.put('flatAccounts', hashed, leaf);
    }
    for (const [key, hashed] of cleared) {
      for (const { key: k } of this.db.range(
        'flatStorage',
        slotKey(hashed, new Uint8Array(32)),
        rangeEnd(hashed),
      ))
        batch.del('flatStorage', k);
      for (const [slot, value] of trieEntriesSync(load, storageRootOf(hashed)))
        batch.put('flatStorage', slotKey(hashed, slot), RLP.decode(value) as Uint8Array);
      storageRoots.set(key, storageRootOf(hashed));
    }
    for (const k of slots.values()) {
      const hashed = k.subarray(0, 32);
      if (cleared.has(hex(hashed))) continue;
      const raw = trieGetHashedSync(load, storageRootOf(hashed), k.subarray(32));
      if (raw === null) batch.del('flatStorage', k);
      else batch.put('flatStorage', k, RLP.decode(raw) as Uint8Array);
    }
    batch.put('meta', FLAT_ROOT, root);
    this.db.commit(batch);
    this.flatRoot = root.slice();
  }

  /** The batch `apply` filled is committed (or handed to `Database.commitAsync`, readable at once). */
  moved(root: Uint8Array): void {
    this.flatRoot = root.slice();
  }

  /** The root the tables hold, read again from the database (after a commit that failed). */
  reload(): void {
    const root = this.db.get('meta', FLAT_ROOT);
    this.flatRoot = root === undefined ? undefined : root.slice();
  }

  /**
   * Rewrites the tables from the trie at `root` (its nodes must be committed). The tables name no
   * root until the last transaction, so a stop part-way leaves them unused, never wrong.
   */
  rebuild(root: Uint8Array, onProgress?: (progress: RebuildProgress) => void): void {
    if (this.isAt(root)) return;
    const progress: RebuildProgress = { accounts: 0, slots: 0 };
    let batch = this.newBatch();
    batch.del('meta', FLAT_ROOT);
    this.db.commit(batch);
    this.flatRoot = undefined;
    batch = this.newBatch();
    const flush = () => {
      if (batch.size < REBUILD_BATCH) return;
      this.db.commit(batch);
      batch = this.newBatch();
    };
    for (const store of ['flatAccounts', 'flatStorage'] as const) {
      for (const { key } of this.db.range(store)) {
        batch.del(store, key);
        flush();
      }
    }
    const load = this.store.load;
    for (const [hashed, leaf] of trieEntriesSync(load, root)) {
      batch.put('flatAccounts', hashed, leaf);
      progress.accounts++;
      if (onProgress && progress.accounts % PROGRESS_EVERY === 0) onProgress(progress);
      flush();
      const storageRoot = (RLP.decode(leaf) as Uint8Array[])[2];
      if (equalsBytes(storageRoot, KECCAK256_RLP)) continue;
      for (const [slot, value] of trieEntriesSync(load, storageRoot)) {
        batch.put('flatStorage', slotKey(hashed, slot), RLP.decode(value) as Uint8Array);
        progress.slots++;
        if (onProgress && progress.slots % PROGRESS_EVERY === 0) onProgress(progress);
        flush();
      }
    }
    batch.put('meta', FLAT_ROOT, root);
    this.db.commit(batch);
    this.flatRoot = root.slice();
  }

  private newBatch(): WriteBatch {
    return new WriteBatch();
  }
}
