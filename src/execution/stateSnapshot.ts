/**
 * Read-through memo of committed state for simulations. Everything here is keyed by content that
 * can never change meaning: accounts by (state root, address), storage by (storage root, slot), code
 * by code hash. So nothing is ever invalidated: a new head brings a new state root (a new
 * snapshot), while storage and code of contracts it did not touch stay warm in the shared
 * `ContentCache`. Only values read from the trie store enter these maps; a simulation's own writes
 * and overrides live in its `CallState` and never reach them.
 */
import type { Common } from '@ethereumjs/common';
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import { type Account, type Address, concatBytes, createAccountFromRLP } from '@ethereumjs/util';
import { bytesToHexKey } from '../state/trieStore.js';
import type { WorldState } from '../state/worldState.js';

const EMPTY = new Uint8Array(0);

/** Bounds, in entries (code in bytes): reaching one drops that map whole, the cheapest eviction. */
const MAX_STORAGE_SLOTS = 250_000;
const MAX_STORAGE_TRIES = 2_000;
const MAX_CODE_BYTES = 64 << 20;
const MAX_ACCOUNTS = 100_000;

/** Storage and code read from the trie store, shared by every snapshot of one world state. */
export class ContentCache {
  private slots = new Map<string, Uint8Array>();
  private tries = new Map<string, MerklePatriciaTrie>();
  private code = new Map<string, Uint8Array>();
  private codeBytes = 0;

  constructor(readonly world: WorldState) {}

  /** The slot's value (leading zeros stripped, empty when unset) in the storage trie at `root`. */
  async storage(root: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const rootKey = bytesToHexKey(root);
    const key = rootKey + bytesToHexKey(slot);
    const hit = this.slots.get(key);
    if (hit !== undefined) return hit;
    let trie = this.tries.get(rootKey);
    if (trie === undefined) {
      if (this.tries.size >= MAX_STORAGE_TRIES) this.tries = new Map();
      trie = this.world.newTrie(root);
      this.tries.set(rootKey, trie);
    }
    const raw = await trie.get(slot);
    const value = raw === null ? EMPTY : (RLP.decode(raw) as Uint8Array);
    if (this.slots.size >= MAX_STORAGE_SLOTS) this.slots = new Map();
    this.slots.set(key, value);
    return value;
  }

  /** Contract code by its hash (empty when the store does not hold it). */
  async codeByHash(codeHash: Uint8Array, accountTrie: MerklePatriciaTrie): Promise<Uint8Array> {
    const key = bytesToHexKey(codeHash);
    const hit = this.code.get(key);
    if (hit !== undefined) return hit;
    const code = (await accountTrie.database().get(concatBytes(CODEHASH_PREFIX, codeHash))) ?? EMPTY;
    if (this.codeBytes + code.length > MAX_CODE_BYTES) {
      this.code = new Map();
      this.codeBytes = 0;
    }
    this.code.set(key, code);
    this.codeBytes += code.length;
    return code;
  }
}

/** The committed state at one state root. Returned objects are shared: callers copy accounts. */
export class StateSnapshot {
  private accounts = new Map<string, Account | null>();
  private readonly accountTrie: MerklePatriciaTrie;

  constructor(
    readonly content: ContentCache,
    readonly stateRoot: Uint8Array,
    /** The Common a state root is rebuilt with (pre-Byzantium receipts need one). */
    readonly common: Common,
  ) {
    this.accountTrie = content.world.newTrie(stateRoot);
  }

  get world(): WorldState {
    return this.content.world;
  }

  /** The account as committed at this root; never mutate it. */
  async account(address: Address, key: string): Promise<Account | undefined> {
    const hit = this.accounts.get(key);
    if (hit !== undefined) return hit ?? undefined;
    const rlp = await this.accountTrie.get(address.bytes);
    const account = rlp === null ? null : createAccountFromRLP(rlp);
    if (this.accounts.size >= MAX_ACCOUNTS) this.accounts = new Map();
    this.accounts.set(key, account);
    return account ?? undefined;
  }

  storage(storageRoot: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    return this.content.storage(storageRoot, slot);
  }

  code(codeHash: Uint8Array): Promise<Uint8Array> {
    return this.content.codeByHash(codeHash, this.accountTrie);
  }

  /** Whether the trie store holds a state root. */
  hasRoot(root: Uint8Array): Promise<boolean> {
    return this.accountTrie.checkRoot(root);
  }
}
