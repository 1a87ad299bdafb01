/**
 * The state the EVM executes blocks on (import and the block builder): the library's
 * `StateManagerInterface` over Alder's world state.
 *
 * Three layers. The committed layer is the state at one state root (the parent block's): values read
 * once stay in bounded maps from block to block, and are brought forward with each block's writes,
 * so a chain of blocks reads each account and slot from the database once. The block layer holds
 * what the block being executed wrote, with a journal for the EVM's checkpoints. The tries:
 * `getStateRoot` applies what the block layer changed since its last call to in-memory tries (the
 * account trie and each written account's storage trie, kept warm between blocks) and hashes the
 * changed nodes (called once per block, each node once); the new nodes go to the trie store's
 * pending writes, committed with the block.
 *
 * `commitBlock` moves the block layer into the committed layer once the block is accepted; anything
 * else (`setStateRoot` to another root, a failed block) drops it.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX, OriginalStorageCache } from '@ethereumjs/statemanager';
import {
  Account,
  type Address,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  MAX_INTEGER,
  MAX_UINT64,
} from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { rlpBytesList } from '../util/rlpWrite.js';
import { unpaddedWordBytes } from '../util/word.js';
import type { StateChanges } from './flatState.js';
import { MutableTrie, type NodeSink } from './mutableTrie.js';
import type { StateSnapshot } from './stateSnapshot.js';
import { addressKey, bytesToHexKey, hexKeyToBytes, type TrieStore } from './trieStore.js';

const EMPTY = new Uint8Array(0);
const CODE_PREFIX_HEX = bytesToHexKey(CODEHASH_PREFIX);

/** Committed accounts plus slots kept before the maps are dropped (at a block boundary). */
const MAX_COMMITTED_ENTRIES = 200_000;
/** Trie nodes the warm tries may have loaded before they start again from their roots. */
const MAX_LOADED_NODES = 100_000;
const MAX_CODE_BYTES = 32 << 20;

/** Reads of the committed state at a root (the world state's snapshot of that root). */
export type SnapshotAt = (root: Uint8Array) => StateSnapshot;

interface DirtyAccount {
  address: Uint8Array;
  account: Account | undefined;
}

/** One journal entry: how to undo a write. */
type Undo =
  | { k: 0; key: string; prior: DirtyAccount | undefined }
  | { k: 1; key: string; slot: string; prior: Uint8Array | undefined }
  | { k: 2; key: string; priorSlots: Map<string, Uint8Array> | undefined; priorCleared: boolean };

interface BlockStorageTrie {
  trie: MutableTrie;
  cleared: boolean;
  hashedAddress: Uint8Array;
  /** The hashed slot and the value last written into the trie, per slot (hex). */
  applied: Map<string, [Uint8Array, Uint8Array]>;
  /** The trie's root once those writes were applied (while `stale` is false). */
  root: Uint8Array;
  /** Writes went into the trie since `root` was worked out. */
  stale: boolean;
}

function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

function stripZeros(v: Uint8Array): Uint8Array {
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  return i === 0 ? v : v.subarray(i);
}

export class BlockState implements StateManagerInterface {
  readonly originalStorageCache: OriginalStorageCache;

  /** The committed state root and its layer. */
  private root: Uint8Array;
  private snapshot: StateSnapshot;
  private cAccounts = new Map<string, Account | null>();
  private cStorage = new Map<string, Map<string, Uint8Array>>();
  private cEntries = 0;

  /** The block layer. */
  private dAccounts = new Map<string, DirtyAccount>();
  private dStorage = new Map<string, Map<string, Uint8Array>>();
  private dCleared = new Set<string>();
  private journal: Undo[] = [];
  private marks: number[] = [];

  /** Code by hash (content-addressed: never stale). */
  private code = new Map<string, Uint8Array>();
  private codeBytes = 0;

  /** The tries. */
  private accountTrie: MutableTrie;
  /** The hashed address and the leaf last written into the account trie, per address (hex). */
  private appliedAccounts = new Map<string, [Uint8Array, Uint8Array]>();
  private blockTries = new Map<string, BlockStorageTrie>();
  /** Storage tries of earlier blocks, by address, at the storage root they were committed at. */
  private warmTries = new Map<string, MutableTrie>();
  /** The root `getStateRoot` last returned, while nothing was written since. */
  private computedRoot: Uint8Array | undefined;
  /**
   * What the block layer changed since the tries were last brought up to it (by `getStateRoot`), so
   * that bringing them up again costs what changed since, not what the block changed so far: the
   * account keys written (an account, a slot or a wipe), and per account key the slots written, or
   * null once its storage was wiped (or a wipe undone: every slot is applied again).
   */
  private dirty = new Set<string>();
  private dirtySlots = new Map<string, Set<string> | null>();
  private readonly sink: NodeSink;

  constructor(
    private readonly store: TrieStore,
    private readonly snapshotAt: SnapshotAt,
    root: Uint8Array,
  ) {
    this.root = root;
    this.snapshot = snapshotAt(root);
    this.accountTrie = new MutableTrie(root, store.load);
    this.sink = (key, rlp, hash) => store.putSync(key, rlp, hash);
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
  }

  /** The committed state root (the state before the block being executed). */
  get committedRoot(): Uint8Array {
    return this.root;
  }

  // ------------------------------------------------------------------------------------------------
  // Reads

  private committedAccount(key: string, address?: Uint8Array): Account | undefined {
    const hit = this.cAccounts.get(key);
    if (hit !== undefined) return hit ?? undefined;
    const account = this.snapshot.accountSync(key, address);
    this.cAccounts.set(key, account ?? null);
    this.cEntries++;
    return account;
  }

  private currentAccount(key: string, address?: Uint8Array): Account | undefined {
    const d = this.dAccounts.get(key);
    if (d !== undefined) return d.account;
    return this.committedAccount(key, address);
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const a = this.currentAccount(addressKey(address), address.bytes);
    return a === undefined ? undefined : copyAccount(a);
  }

  private committedSlot(
    key: string,
    address: Uint8Array | undefined,
    slotKey: string,
    slot: Uint8Array,
  ): Uint8Array {
    let slots = this.cStorage.get(key);
    const hit = slots?.get(slotKey);
    if (hit !== undefined) return hit;
    const account = this.committedAccount(key, address);
    const value =
      account === undefined || equalsBytes(account.storageRoot, KECCAK256_RLP)
        ? EMPTY
        : this.snapshot.storage(address ?? hexKeyToBytes(key), slot);
    if (slots === undefined) {
      slots = new Map();
      this.cStorage.set(key, slots);
    }
    slots.set(slotKey, value);
    this.cEntries++;
    return value;
  }

  async getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    if (slot.length !== 32) throw new Error('Storage key must be 32 bytes long');
    const key = addressKey(address);
    const slotKey = bytesToHexKey(slot);
    const d = this.dStorage.get(key)?.get(slotKey);
    if (d !== undefined) return d;
    if (this.dCleared.has(key)) return EMPTY;
    return this.committedSlot(key, address.bytes, slotKey, slot);
  }

  private codeByHash(hash: Uint8Array): Uint8Array {
    const key = bytesToHexKey(hash);
    const hit = this.code.get(key);
    if (hit !== undefined) return hit;
    const code = this.snapshot.codeSync(hash);
    this.rememberCode(key, code);
    return code;
  }

  private rememberCode(key: string, code: Uint8Array): void {
    if (this.codeBytes + code.length > MAX_CODE_BYTES) {
      this.code = new Map();
      this.codeBytes = 0;
    }
    this.code.set(key, code);
    this.codeBytes += code.length;
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const a = this.currentAccount(addressKey(address), address.bytes);
    if (a === undefined || equalsBytes(a.codeHash, KECCAK256_NULL)) return EMPTY;
    return this.codeByHash(a.codeHash);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  /**
   * Synchronous reads by unprefixed hex address key (40 characters) and slot key (64), for the call
   * interpreter's world (`execution/fastCall/`). The account returned is the state's own: never
   * mutate it. Storage values have their leading zeros stripped.
   */
  accountSync(key: string): Account | undefined {
    return this.currentAccount(key);
  }

  codeSync(key: string): Uint8Array {
    const a = this.currentAccount(key);
    if (a === undefined || equalsBytes(a.codeHash, KECCAK256_NULL)) return EMPTY;
    return this.codeByHash(a.codeHash);
  }

  storageSync(key: string, slot: Uint8Array, slotKey: string): Uint8Array {
    const d = this.dStorage.get(key)?.get(slotKey);
    if (d !== undefined) return d;
    if (this.dCleared.has(key)) return EMPTY;
    return this.committedSlot(key, undefined, slotKey, slot);
  }

  // ------------------------------------------------------------------------------------------------
  // Writes (journalled)

  private setAccount(key: string, address: Uint8Array, account: Account | undefined): void {
    this.journal.push({ k: 0, key, prior: this.dAccounts.get(key) });
    this.dAccounts.set(key, { address, account });
    this.dirty.add(key);
    this.computedRoot = undefined;
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    const key = addressKey(address);
    if (account === undefined) {
      this.setAccount(key, address.bytes, undefined);
      return;
    }
    this.setAccount(key, address.bytes, copyAccount(account));
  }

  /**
   * `putAccount` by key, for the transaction runner's commit (`execution/fastCall/`): `key` is the
   * address's 40 hex digits, `address` its bytes, and `account` becomes the state's own (the caller
   * never changes it again), so it is not copied.
   */
  setAccountAt(key: string, address: Uint8Array, account: Account): void {
    this.setAccount(key, address, account);
  }

  /**
   * `putStorage` by key, for the same commit: slot `slotKey` (64 hex digits) of account `key` takes
   * `value`, its bytes without leading zeros, which becomes the state's own.
   */
  setSlotAt(key: string, slotKey: string, value: Uint8Array): void {
    this.writeSlot(key, undefined, slotKey, value);
  }

  async deleteAccount(address: Address): Promise<void> {
    this.deleteAccountAt(addressKey(address), address.bytes);
  }

  /** `deleteAccount` by key (see `setAccountAt`). */
  deleteAccountAt(key: string, address: Uint8Array): void {
    this.setAccount(key, address, undefined);
    this.wipeStorage(key);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    this.modifyFields(addressKey(address), address.bytes, fields);
  }

  private modifyFields(key: string, address: Uint8Array, fields: AccountFields): void {
    const prior = this.currentAccount(key, address);
    const a = prior === undefined ? new Account() : copyAccount(prior);
    if (fields.nonce !== undefined) a.nonce = fields.nonce;
    if (fields.balance !== undefined) a.balance = fields.balance;
    if (fields.storageRoot !== undefined) a.storageRoot = fields.storageRoot;
    if (fields.codeHash !== undefined) a.codeHash = fields.codeHash;
    this.setAccount(key, address, a);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.putCodeAt(addressKey(address), address.bytes, value);
  }

  /** `putCode` by key (see `setAccountAt`). */
  putCodeAt(key: string, address: Uint8Array, value: Uint8Array): void {
    const hash = keccak256(value);
    const hashKey = bytesToHexKey(hash);
    if (value.length > 0) {
      this.store.putSync(CODE_PREFIX_HEX + hashKey, value);
      this.rememberCode(hashKey, value);
    }
    this.modifyFields(key, address, { codeHash: hash });
  }

  async putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (slot.length !== 32) throw new Error('Storage key must be 32 bytes long');
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes');
    this.writeSlot(addressKey(address), address.bytes, bytesToHexKey(slot), stripZeros(value).slice());
  }

  /** Writes a slot of an existing account (`address`: its bytes, when at hand). */
  private writeSlot(key: string, address: Uint8Array | undefined, slotKey: string, value: Uint8Array): void {
    if (this.currentAccount(key, address) === undefined)
      throw new Error('putStorage() called on non-existing account');
    let slots = this.dStorage.get(key);
    if (slots === undefined) {
      slots = new Map();
      this.dStorage.set(key, slots);
    }
    this.journal.push({ k: 1, key, slot: slotKey, prior: slots.get(slotKey) });
    slots.set(slotKey, value);
    this.slotChanged(key, slotKey);
    this.computedRoot = undefined;
  }

  async clearStorage(address: Address): Promise<void> {
    this.wipeStorage(addressKey(address));
  }

  /** `clearStorage` by key (see `setAccountAt`). */
  clearStorageAt(key: string): void {
    this.wipeStorage(key);
  }

  private wipeStorage(key: string): void {
    this.journal.push({
      k: 2,
      key,
      priorSlots: this.dStorage.get(key),
      priorCleared: this.dCleared.has(key),
    });
    this.dStorage.set(key, new Map());
    this.dCleared.add(key);
    this.dirty.add(key);
    this.dirtySlots.set(key, null);
    this.computedRoot = undefined;
  }

  private slotChanged(key: string, slotKey: string): void {
    this.dirty.add(key);
    let slots = this.dirtySlots.get(key);
    if (slots === null) return;
    if (slots === undefined) {
      slots = new Set();
      this.dirtySlots.set(key, slots);
    }
    slots.add(slotKey);
  }

  async checkpoint(): Promise<void> {
    this.marks.push(this.journal.length);
  }

  async commit(): Promise<void> {
    this.marks.pop();
    if (this.marks.length === 0) this.journal = [];
  }

  async revert(): Promise<void> {
    const mark = this.marks.pop() ?? 0;
    const journal = this.journal;
    for (let i = journal.length - 1; i >= mark; i--) {
      const u = journal[i];
      if (u.k === 0) {
        if (u.prior === undefined) this.dAccounts.delete(u.key);
        else this.dAccounts.set(u.key, u.prior);
        this.dirty.add(u.key);
      } else if (u.k === 1) {
        const slots = this.dStorage.get(u.key) as Map<string, Uint8Array>;
        if (u.prior === undefined) slots.delete(u.slot);
        else slots.set(u.slot, u.prior);
        this.slotChanged(u.key, u.slot);
      } else {
        if (u.priorSlots === undefined) this.dStorage.delete(u.key);
        else this.dStorage.set(u.key, u.priorSlots);
        if (!u.priorCleared) this.dCleared.delete(u.key);
        this.dirty.add(u.key);
        this.dirtySlots.set(u.key, null);
      }
    }
    journal.length = mark;
    this.computedRoot = undefined;
  }

  // ------------------------------------------------------------------------------------------------
  // Roots

  /** The state root of the committed layer with the block layer applied. */
  async getStateRoot(): Promise<Uint8Array> {
    return this.stateRootSync();
  }

  /**
   * Brings the tries up to the block layer and hashes what changed: only what was written since the
   * last call (see `dirty`), so calling it while a block is built leaves less for its close.
   */
  stateRootSync(): Uint8Array {
    if (this.computedRoot !== undefined) return this.computedRoot;
    // Storage tries first: an account's leaf carries its storage root.
    for (const [key, changed] of this.dirtySlots) this.applyStorage(key, changed);
    for (const key of this.dirty) this.applyAccount(key);
    this.dirty = new Set();
    this.dirtySlots = new Map();
    this.computedRoot = this.accountTrie.commit(this.sink);
    return this.computedRoot;
  }

  /**
   * Part of `stateRootSync`'s work, done ahead in small steps until `deadline` (performance.now()):
   * written slots into their storage tries, then the changed accounts' leaves into the account trie,
   * and the changed nodes below each trie's top levels hashed. What is done leaves `dirty` and
   * `dirtySlots` (a later write puts it back). True once only the tries' top levels are left, which
   * `stateRootSync` hashes. The block builder calls it while arrivals pause, so that closing the block
   * costs little and no single step holds the thread for long.
   */
  settle(deadline: number): boolean {
    if (this.computedRoot !== undefined) return true;
    for (const [key, changed] of this.dirtySlots) {
      const { bt, slots } = this.storagePlan(key, changed);
      this.dirtySlots.set(key, slots);
      const written = this.dStorage.get(key);
      let n = 0;
      for (const slotKey of slots) {
        this.applySlot(key, bt, written, slotKey);
        slots.delete(slotKey);
        if ((++n & 31) === 0 && performance.now() >= deadline) return false;
      }
      this.dirtySlots.delete(key);
      if (!bt.trie.hashSome(this.sink, deadline)) return false;
      this.hashStorage(bt);
    }
    let n = 0;
    for (const key of this.dirty) {
      this.applyAccount(key);
      this.dirty.delete(key);
      if ((++n & 31) === 0 && performance.now() >= deadline) return false;
    }
    return this.accountTrie.hashSome(this.sink, deadline);
  }

  /** Writes the account's current leaf (with its storage root) into the account trie, if it changed. */
  private applyAccount(key: string): void {
    const d = this.dAccounts.get(key);
    const address = d?.address ?? hexKeyToBytes(key);
    const account = d !== undefined ? d.account : this.committedAccount(key, address);
    let leaf: Uint8Array = EMPTY;
    const bt = this.blockTries.get(key);
    if (bt !== undefined) this.hashStorage(bt);
    if (account !== undefined) {
      const storageRoot = bt?.root ?? this.committedAccount(key, address)?.storageRoot;
      leaf = accountLeaf(account.nonce, account.balance, storageRoot ?? KECCAK256_RLP, account.codeHash);
    }
    const last = this.appliedAccounts.get(key);
    if (last === undefined ? d === undefined && bt === undefined : equalsBytes(last[1], leaf)) return;
    const hashed = last?.[0] ?? keccak256(address);
    this.accountTrie.put(hashed, leaf);
    this.appliedAccounts.set(key, [hashed, leaf]);
  }

  /**
   * Brings the account's storage trie up to the block layer: the slots in `changed` (every slot of the
   * block layer and every slot applied before when null) go to their current value, or back to their
   * committed one when a revert removed them; the trie is hashed again if that wrote anything.
   */
  private applyStorage(key: string, changed: Set<string> | null): void {
    const { bt, slots } = this.storagePlan(key, changed);
    const written = this.dStorage.get(key);
    for (const slotKey of slots) this.applySlot(key, bt, written, slotKey);
    this.hashStorage(bt);
  }

  /**
   * The account's storage trie for the block (made on first use, or again after a wipe or an undone
   * one: from its committed root, or empty once wiped) and the slots to bring it up to: `changed`, or
   * when null or for a trie just made, every slot the block layer holds and every slot applied before.
   */
  private storagePlan(
    key: string,
    changed: Set<string> | null,
  ): { bt: BlockStorageTrie; slots: Set<string> } {
    const cleared = this.dCleared.has(key);
    let bt = this.blockTries.get(key);
    if (bt !== undefined && bt.cleared !== cleared) bt = undefined;
    if (bt === undefined) {
      let trie: MutableTrie | undefined;
      let root: Uint8Array = KECCAK256_RLP;
      if (cleared) trie = new MutableTrie(KECCAK256_RLP, this.store.load);
      else {
        root = this.committedAccount(key, hexKeyToBytes(key))?.storageRoot ?? KECCAK256_RLP;
        const warm = this.warmTries.get(key);
        trie = warm !== undefined && equalsBytes(warm.committedRoot, root) ? warm : undefined;
        trie ??= new MutableTrie(root, this.store.load);
      }
      bt = {
        trie,
        cleared,
        hashedAddress: keccak256(hexKeyToBytes(key)),
        applied: new Map(),
        root,
        stale: true,
      };
      this.blockTries.set(key, bt);
      changed = null;
    }
    if (changed !== null) return { bt, slots: changed };
    const slots = new Set(bt.applied.keys());
    const written = this.dStorage.get(key);
    if (written !== undefined) for (const slotKey of written.keys()) slots.add(slotKey);
    return { bt, slots };
  }

  /**
   * Writes the slot's value in the block layer (`written`) into the account's storage trie, or, when a
   * revert removed it, its committed value back; nothing when the trie already holds that value.
   */
  private applySlot(
    key: string,
    bt: BlockStorageTrie,
    written: Map<string, Uint8Array> | undefined,
    slotKey: string,
  ): void {
    const value = written?.get(slotKey);
    const last = bt.applied.get(slotKey);
    if (value === undefined) {
      // Written earlier in the block and reverted since: back to its committed value.
      if (last === undefined) return;
      const committed = bt.cleared
        ? EMPTY
        : this.committedSlot(key, hexKeyToBytes(key), slotKey, hexKeyToBytes(slotKey));
      if (!equalsBytes(committed, last[1])) putSlot(bt.trie, last[0], committed);
      bt.applied.delete(slotKey);
      bt.stale = true;
      return;
    }
    if (last !== undefined && equalsBytes(last[1], value)) return;
    const hashed = last?.[0] ?? keccak256(hexKeyToBytes(slotKey));
    putSlot(bt.trie, hashed, value);
    bt.applied.set(slotKey, [hashed, value]);
    bt.stale = true;
  }

  /** The storage trie's root, hashed again if writes went into it since. */
  private hashStorage(bt: BlockStorageTrie): void {
    if (!bt.stale) return;
    bt.root = bt.trie.commit(this.sink);
    bt.stale = false;
  }

  /**
   * The block is accepted: its writes become the committed layer at the root `getStateRoot`
   * computed (the caller has checked it against the header).
   */
  commitBlock(): { root: Uint8Array; changes: StateChanges; preimages: Array<[Uint8Array, Uint8Array]> } {
    const root = this.stateRootSync();
    const changes: StateChanges = { accounts: [], cleared: [], storage: [] };
    // keccak256 → key of every address and slot the block wrote (debug ranges): the hashes are the
    // ones the tries were just updated under, so recording them costs no hashing.
    const preimages: Array<[Uint8Array, Uint8Array]> = [];
    for (const [key, bt] of this.blockTries) {
      let slots = this.cStorage.get(key);
      if (bt.cleared || slots === undefined) {
        slots = new Map();
        this.cStorage.set(key, slots);
      }
      if (bt.cleared) changes.cleared.push(bt.hashedAddress);
      for (const [slotKey, [hashed, value]] of bt.applied) {
        slots.set(slotKey, value);
        this.cEntries++;
        changes.storage.push([bt.hashedAddress, hashed, value]);
        preimages.push([hashed, hexKeyToBytes(slotKey)]);
      }
      this.warmTries.set(key, bt.trie);
    }
    for (const [key, [hashed, leaf]] of this.appliedAccounts) {
      changes.accounts.push([hashed, leaf]);
      preimages.push([hashed, hexKeyToBytes(key)]);
      this.cAccounts.set(key, leaf.length === 0 ? null : accountFromLeaf(leaf));
      this.cEntries++;
      if (leaf.length === 0) {
        // A removed account has no storage, whatever its storage trie held.
        this.cStorage.delete(key);
        this.warmTries.delete(key);
      }
    }
    for (const key of this.dCleared) if (!this.blockTries.has(key)) this.cStorage.delete(key);
    this.root = root;
    this.snapshot = this.snapshotAt(root);
    this.clearBlock();
    this.bound();
    return { root, changes, preimages };
  }

  /** Drops the block layer (the committed layer stays). */
  private clearBlock(): void {
    this.dAccounts = new Map();
    this.dStorage = new Map();
    this.dCleared = new Set();
    this.journal = [];
    this.marks = [];
    this.appliedAccounts = new Map();
    this.blockTries = new Map();
    this.dirty = new Set();
    this.dirtySlots = new Map();
    this.computedRoot = undefined;
    this.originalStorageCache.clear();
  }

  private bound(): void {
    if (this.cEntries > MAX_COMMITTED_ENTRIES) {
      this.cAccounts = new Map();
      this.cStorage = new Map();
      this.cEntries = 0;
    }
    let loaded = this.accountTrie.loaded;
    for (const t of this.warmTries.values()) loaded += t.loaded;
    if (loaded > MAX_LOADED_NODES) {
      this.accountTrie = new MutableTrie(this.root, this.store.load);
      this.warmTries = new Map();
    }
  }

  /** Positions the state on `root`, dropping the block layer and, for another root, every cache. */
  async setStateRoot(root: Uint8Array, _clearCache?: boolean): Promise<void> {
    this.reset(root);
  }

  reset(root: Uint8Array): void {
    this.clearBlock();
    if (equalsBytes(root, this.root) && equalsBytes(this.accountTrie.committedRoot, root)) return;
    this.root = root;
    this.snapshot = this.snapshotAt(root);
    this.cAccounts = new Map();
    this.cStorage = new Map();
    this.cEntries = 0;
    this.accountTrie = new MutableTrie(root, this.store.load);
    this.warmTries = new Map();
  }

  /** Drops the block layer and every cache: the state reads from the database again. */
  discard(): void {
    this.clearBlock();
    this.cAccounts = new Map();
    this.cStorage = new Map();
    this.cEntries = 0;
    this.accountTrie = new MutableTrie(this.root, this.store.load);
    this.warmTries = new Map();
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return equalsBytes(root, KECCAK256_RLP) || this.store.load(bytesToHexKey(root)) !== undefined;
  }

  clearCaches(): void {
    this.cAccounts = new Map();
    this.cStorage = new Map();
    this.cEntries = 0;
  }

  getAppliedKey(address: Uint8Array): Uint8Array {
    return keccak256(address);
  }

  /** A state on the same committed root without this one's block layer. */
  shallowCopy(): StateManagerInterface {
    return new BlockState(this.store, this.snapshotAt, this.root);
  }
}

function putSlot(trie: MutableTrie, hashedSlot: Uint8Array, value: Uint8Array): void {
  trie.put(hashedSlot, value.length === 0 ? EMPTY : RLP.encode(value));
}

/**
 * An account's leaf in the state trie: the RLP of its nonce, balance (big-endian without leading zeros),
 * storage root and code hash, what `Account.serialize()` gives, written in one buffer (the library
 * builds an Account, checks it and encodes each field through the generic encoder; a leaf is made for
 * every account a block changed). Values outside the fields' ranges go to the library, which refuses
 * them.
 */
export function accountLeaf(
  nonce: bigint,
  balance: bigint,
  storageRoot: Uint8Array,
  codeHash: Uint8Array,
): Uint8Array {
  if (
    nonce < 0n ||
    nonce > MAX_UINT64 ||
    balance < 0n ||
    balance > MAX_INTEGER ||
    storageRoot.length !== 32 ||
    codeHash.length !== 32
  )
    return new Account(nonce, balance, storageRoot, codeHash).serialize();
  return rlpBytesList([unpaddedWordBytes(nonce), unpaddedWordBytes(balance), storageRoot, codeHash]);
}

function accountFromLeaf(leaf: Uint8Array): Account {
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(leaf) as Uint8Array[];
  return new Account(bytesToBig(nonce), bytesToBig(balance), storageRoot, codeHash);
}

function bytesToBig(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = 0; i < b.length; i++) n = (n << 8n) | BigInt(b[i]);
  return n;
}
