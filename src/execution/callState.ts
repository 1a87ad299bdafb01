/**
 * The state a simulated call runs on: the committed state of its block (a shared `StateSnapshot`)
 * under a private overlay of the call's own writes and overrides, with a journal for the EVM's
 * checkpoints. `reset()` drops the overlay in O(changes), so one instance (and the VM built over
 * it) serves call after call while the snapshot's reads stay warm for every call at that root.
 *
 * It behaves as the EthereumJS Merkle state manager with caches does inside an outer checkpoint
 * (which is how simulations ran before): every storage write updates the account's storage root
 * (a CREATE collision check reads it), `clearStorage` sets it to the empty root, deleted accounts
 * read no code, and storage reads go to the trie at the account's current storage root. Trie nodes
 * a call makes stay in its private scratch store.
 */
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { OriginalStorageCache } from '@ethereumjs/statemanager';
import {
  Account,
  type Address,
  bytesToBigInt,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  unpadBytes,
} from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import type { StateSnapshot } from '../state/stateSnapshot.js';
import { bytesToHexKey, hexKeyToBytes } from '../state/trieStore.js';
import { OverlayStore, overlayTrie } from './overlayStore.js';

const EMPTY = new Uint8Array(0);
/** Bounds of the committed-read memos, in entries; reaching one starts that memo afresh. */
const MAX_COMMITTED_WORDS = 50_000;
const MAX_COMMITTED_CODE = 2_000;

function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash);
}

/** A sender presented without code for its first read (see `presentCodeless`). */
interface CodelessSender {
  key: string;
  codeHash: Uint8Array;
  masked: boolean;
}

export class CallState implements StateManagerInterface {
  /** Written accounts by address key; `null` = deleted. */
  private readonly accounts = new Map<string, Account | null>();
  /** Code put (or removed, as empty) by address key. */
  private readonly code = new Map<string, Uint8Array>();
  /** Written slots by address key, then slot key; values have leading zeros stripped. */
  private readonly storage = new Map<string, Map<string, Uint8Array>>();
  /** Storage tries being written, by address key (dropped on revert, as the account's root is). */
  private readonly tries = new Map<string, MerklePatriciaTrie>();
  /** Storage roots this call made: their nodes are only in `scratch`. */
  private readonly ownRoots = new Set<string>();
  /** Trie nodes of this call's writes; reads fall through to the world state's store. */
  private scratch: OverlayStore | undefined;
  /** Undo steps; `marks` holds the journal length at each open checkpoint. */
  private readonly journal: Array<() => void> = [];
  private readonly marks: number[] = [];
  private codeless: CodelessSender | undefined;
  /**
   * Committed storage words by address key + slot key, and committed code by address key, for the
   * interpreter's reads of accounts this call has not written. They hold only what the snapshot says,
   * which never changes, so they outlive `reset()` and serve call after call at this block.
   */
  private committedWords = new Map<string, bigint>();
  private committedCode = new Map<string, Uint8Array>();
  /** `originalStorageCache` reads the snapshot's values (`meterAgainstSnapshot`) until `reset()`. */
  private meteredAgainstSnapshot = false;

  originalStorageCache: OriginalStorageCache;

  constructor(readonly snapshot: StateSnapshot) {
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
  }

  /** Forgets every write, override and checkpoint: the state is the snapshot's again. */
  reset(): void {
    // Most calls write nothing here (the interpreter keeps its writes to itself): clearing an empty
    // map would still allocate a fresh table.
    if (this.accounts.size > 0) this.accounts.clear();
    if (this.code.size > 0) this.code.clear();
    if (this.storage.size > 0) this.storage.clear();
    if (this.tries.size > 0) this.tries.clear();
    if (this.ownRoots.size > 0) this.ownRoots.clear();
    this.scratch = undefined;
    this.journal.length = 0;
    this.marks.length = 0;
    this.codeless = undefined;
    if (this.meteredAgainstSnapshot) {
      this.meteredAgainstSnapshot = false;
      this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
    } else this.originalStorageCache.clear();
  }

  /**
   * Meters every later transaction's SSTOREs against the snapshot's values, not the values at its own
   * start: Besu runs trace_callMany's calls on one uncommitted state, so for its calls a slot an earlier
   * call wrote is already dirty. Lasts until `reset()`.
   */
  meterAgainstSnapshot(): void {
    this.meteredAgainstSnapshot = true;
    this.originalStorageCache = new OriginalStorageCache(async (address, slot) => {
      const account = this.snapshot.accountSync(bytesToHexKey(address.bytes), address.bytes);
      return account ? this.snapshot.storageSync(account.storageRoot, slot) : EMPTY;
    });
  }

  /**
   * Simulations let contracts be senders (EIP-3607 is a pool and block rule): the next read of
   * `address` shows it without code, and once it has been shown so, writing it back without code
   * restores its code hash. Lasts until `reset()`.
   */
  presentCodeless(address: Address, codeHash: Uint8Array): void {
    this.codeless = { key: bytesToHexKey(address.bytes), codeHash, masked: false };
  }

  private record(undo: () => void): void {
    if (this.marks.length > 0) this.journal.push(undo);
  }

  private setAccount(key: string, value: Account | null): void {
    const prev = this.accounts.get(key);
    this.record(() => (prev === undefined ? this.accounts.delete(key) : this.accounts.set(key, prev)));
    this.accounts.set(key, value);
  }

  private setCode(key: string, value: Uint8Array): void {
    const prev = this.code.get(key);
    this.record(() => (prev === undefined ? this.code.delete(key) : this.code.set(key, prev)));
    this.code.set(key, value);
  }

  private dropStorage(key: string): void {
    const prev = this.storage.get(key);
    if (prev !== undefined) this.record(() => this.storage.set(key, prev));
    this.storage.delete(key);
    this.tries.delete(key);
  }

  private scratchStore(): OverlayStore {
    this.scratch ??= new OverlayStore(this.snapshot.store);
    return this.scratch;
  }

  /**
   * Reads by unprefixed hex address key, synchronous (LMDB reads are): the call interpreter in
   * `fastCall/` uses them directly, the state-manager methods below through them. The account is
   * shared with the overlay or the snapshot: never mutate it, copy it before handing it out.
   */
  accountSync(key: string): Account | undefined {
    const own = this.accounts.get(key);
    if (own !== undefined) return own ?? undefined;
    return this.snapshot.accountSync(key);
  }

  codeSync(key: string): Uint8Array {
    const own = this.code.get(key);
    if (own !== undefined) return own;
    const committed = !this.accounts.has(key);
    if (committed) {
      const hit = this.committedCode.get(key);
      if (hit !== undefined) return hit;
    }
    const account = this.accountSync(key);
    const code =
      account === undefined || equalsBytes(account.codeHash, KECCAK256_NULL)
        ? EMPTY
        : this.snapshot.codeSync(account.codeHash);
    if (committed) {
      if (this.committedCode.size >= MAX_COMMITTED_CODE) this.committedCode = new Map();
      this.committedCode.set(key, code);
    }
    return code;
  }

  /**
   * `storageSync` as a 256-bit word, for the interpreter: an account this call has not written is
   * answered from the committed words without building byte keys. Undefined as `storageSync`.
   */
  storageWordSync(key: string, slotKey: string, k = key + slotKey): bigint | undefined {
    const committed = !this.accounts.has(key) && !this.storage.has(key);
    if (committed) {
      const hit = this.committedWords.get(k);
      if (hit !== undefined) return hit;
    }
    const raw = this.storageSync(key, hexKeyToBytes(slotKey), slotKey);
    if (raw === undefined) return undefined;
    const word = bytesToBigInt(raw);
    if (committed) {
      if (this.committedWords.size >= MAX_COMMITTED_WORDS) this.committedWords = new Map();
      this.committedWords.set(k, word);
    }
    return word;
  }

  /**
   * The slot's value (leading zeros stripped), or `undefined` when it lives in a storage trie this
   * call wrote (storage overrides): those are read through the asynchronous path only.
   */
  storageSync(key: string, slot: Uint8Array, slotKey: string): Uint8Array | undefined {
    const own = this.storage.get(key)?.get(slotKey);
    if (own !== undefined) return own;
    const account = this.accountSync(key);
    if (account === undefined || equalsBytes(account.storageRoot, KECCAK256_RLP)) return EMPTY;
    if (this.ownRoots.size > 0 && this.ownRoots.has(bytesToHexKey(account.storageRoot))) return undefined;
    return this.snapshot.storageSync(account.storageRoot, slot);
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = bytesToHexKey(address.bytes);
    const account = this.accountSync(key);
    if (account === undefined) return undefined;
    const codeless = this.codeless;
    if (codeless !== undefined && !codeless.masked && codeless.key === key) {
      codeless.masked = true;
      return new Account(account.nonce, account.balance, account.storageRoot, KECCAK256_NULL);
    }
    return copyAccount(account);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    const key = bytesToHexKey(address.bytes);
    if (account === undefined) {
      this.setAccount(key, null);
      return;
    }
    const codeless = this.codeless;
    if (codeless?.masked && codeless.key === key && equalsBytes(account.codeHash, KECCAK256_NULL)) {
      // On the caller's object too, as the code it was shown without is still the account's.
      account.codeHash = codeless.codeHash;
    }
    this.setAccount(key, copyAccount(account));
  }

  async deleteAccount(address: Address): Promise<void> {
    const key = bytesToHexKey(address.bytes);
    this.setCode(key, EMPTY);
    this.setAccount(key, null);
    this.dropStorage(key);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) account.nonce = fields.nonce;
    if (fields.balance !== undefined) account.balance = fields.balance;
    if (fields.storageRoot !== undefined) account.storageRoot = fields.storageRoot;
    if (fields.codeHash !== undefined) account.codeHash = fields.codeHash;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    const key = bytesToHexKey(address.bytes);
    this.setCode(key, value);
    if (this.accountSync(key) === undefined) await this.putAccount(address, new Account());
    await this.modifyAccountFields(address, { codeHash: keccak256(value) });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    return this.codeSync(bytesToHexKey(address.bytes));
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    if (slot.length !== 32) throw new Error('Storage key must be 32 bytes long');
    const key = bytesToHexKey(address.bytes);
    const value = this.storageSync(key, slot, bytesToHexKey(slot));
    if (value !== undefined) return value;
    // A storage trie this call wrote: its nodes are in the scratch store.
    const root = (this.accountSync(key) as Account).storageRoot;
    const raw = await overlayTrie(this.scratchStore(), root).get(slot);
    return raw === null ? EMPTY : (RLP.decode(raw) as Uint8Array);
  }

  async putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (slot.length !== 32) throw new Error('Storage key must be 32 bytes long');
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes');
    const key = bytesToHexKey(address.bytes);
    const account = this.accountSync(key);
    if (account === undefined) throw new Error('putStorage() called on non-existing account');
    let slots = this.storage.get(key);
    if (slots === undefined) {
      slots = new Map();
      this.storage.set(key, slots);
      this.record(() => {
        if (this.storage.get(key) === slots) this.storage.delete(key);
      });
    }
    const slotKey = bytesToHexKey(slot);
    const prev = slots.get(slotKey);
    const map = slots;
    this.record(() => (prev === undefined ? map.delete(slotKey) : map.set(slotKey, prev)));
    const stored = unpadBytes(value);
    slots.set(slotKey, stored);
    // Write through to the account's storage trie, as the Merkle state manager does.
    let trie = this.tries.get(key);
    if (trie === undefined) {
      trie = overlayTrie(this.scratchStore(), account.storageRoot);
      this.tries.set(key, trie);
    }
    if (stored.length > 0) await trie.put(slot, RLP.encode(stored));
    else await trie.del(slot);
    const root = trie.root();
    this.ownRoots.add(bytesToHexKey(root));
    this.setAccount(key, new Account(account.nonce, account.balance, root, account.codeHash));
  }

  async clearStorage(address: Address): Promise<void> {
    const key = bytesToHexKey(address.bytes);
    const account = (await this.getAccount(address)) ?? new Account();
    this.dropStorage(key);
    account.storageRoot = KECCAK256_RLP;
    await this.putAccount(address, account);
  }

  async checkpoint(): Promise<void> {
    this.marks.push(this.journal.length);
  }

  async commit(): Promise<void> {
    this.marks.pop();
    if (this.marks.length === 0) {
      this.journal.length = 0;
      this.originalStorageCache.clear();
    }
  }

  async revert(): Promise<void> {
    const mark = this.marks.pop() ?? 0;
    for (let i = this.journal.length - 1; i >= mark; i--) this.journal[i]();
    this.journal.length = mark;
    this.tries.clear();
    if (this.marks.length === 0) this.originalStorageCache.clear();
  }

  /**
   * The state root with this call's writes applied (receipts before Byzantium carry one): the
   * written accounts, whose storage roots are kept current, put into the block's account trie.
   */
  async getStateRoot(): Promise<Uint8Array> {
    const trie = overlayTrie(new OverlayStore(this.scratchStore()), this.snapshot.stateRoot);
    for (const [key, account] of this.accounts) {
      const address = Uint8Array.from(Buffer.from(key, 'hex'));
      if (account === null) await trie.del(address);
      else await trie.put(address, account.serialize());
    }
    return trie.root();
  }

  async setStateRoot(): Promise<void> {
    throw new Error('a call state is fixed at the state root of its block');
  }

  hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.snapshot.hasRoot(root);
  }

  getAppliedKey(address: Uint8Array): Uint8Array {
    return keccak256(address);
  }

  clearCaches(): void {
    this.reset();
  }

  shallowCopy(): CallState {
    return new CallState(this.snapshot);
  }
}
