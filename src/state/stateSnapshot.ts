/**
 * The one read path into committed state: `WorldState.at(stateRoot)` hands out a `StateSnapshot`,
 * whose reads are synchronous (LMDB reads are) and memoised. eth_getBalance, eth_getCode,
 * eth_getStorageAt, eth_getTransactionCount, eth_getProof, the transaction pool and every simulated
 * call read state through it.
 *
 * Everything here is keyed by content that can never change meaning: accounts by (state root,
 * address), storage by (storage root, slot), code by code hash. So nothing is ever invalidated: a
 * new head brings a new state root (a new snapshot), while storage and code of contracts it did not
 * touch stay warm in the shared `ContentCache`. Only values read from the trie store enter these
 * maps; a simulation's own writes and overrides live in its call state and never reach them.
 */
import { RLP } from '@ethereumjs/rlp';
import { CODEHASH_PREFIX } from '@ethereumjs/statemanager';
import {
  type Account,
  createAccountFromRLP,
  equalsBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
} from '@ethereumjs/util';
import type { FlatState } from './flatState.js';
import { type NodeLoader, trieGetSync, trieProofSync } from './syncTrie.js';
import { bytesToHexKey, hexKeyToBytes, type TrieStore } from './trieStore.js';

const EMPTY = new Uint8Array(0);
/** Code is kept in the trie store under its hash with this prefix. */
const CODE_PREFIX_HEX = bytesToHexKey(CODEHASH_PREFIX);

/** Bounds, in entries (code in bytes): reaching one drops that map whole, the cheapest eviction. */
const MAX_STORAGE_SLOTS = 250_000;
const MAX_CODE_BYTES = 64 << 20;
const MAX_ACCOUNTS = 100_000;

/** Storage and code read from the trie store, shared by every snapshot of one world state. */
export class ContentCache {
  private slots = new Map<string, Uint8Array>();
  private code = new Map<string, Uint8Array>();
  private codeBytes = 0;
  readonly load: NodeLoader;

  constructor(readonly store: TrieStore) {
    this.load = (key) => store.getSync(key);
  }

  /** The slot's value (leading zeros stripped, empty when unset) in the storage trie at `root`. */
  storageSync(root: Uint8Array, slot: Uint8Array): Uint8Array {
    const key = bytesToHexKey(root) + bytesToHexKey(slot);
    const hit = this.slots.get(key);
    if (hit !== undefined) return hit;
    const raw = trieGetSync(this.load, root, slot);
    const value = raw === null ? EMPTY : (RLP.decode(raw) as Uint8Array);
    if (this.slots.size >= MAX_STORAGE_SLOTS) this.slots = new Map();
    this.slots.set(key, value);
    return value;
  }

  /** Contract code by its hash (empty when the store does not hold it). */
  codeByHashSync(codeHash: Uint8Array): Uint8Array {
    const key = bytesToHexKey(codeHash);
    const hit = this.code.get(key);
    if (hit !== undefined) return hit;
    const code = this.load(CODE_PREFIX_HEX + key) ?? EMPTY;
    if (this.codeBytes + code.length > MAX_CODE_BYTES) {
      this.code = new Map();
      this.codeBytes = 0;
    }
    this.code.set(key, code);
    this.codeBytes += code.length;
    return code;
  }
}

/** An account's EIP-1186 proof with the proofs of the requested slots. */
export interface AccountProof {
  account: Account | undefined;
  /** The state trie's nodes on the account's path, root first (RLP). */
  accountProof: Uint8Array[];
  storage: Array<{ slot: Uint8Array; value: Uint8Array; proof: Uint8Array[] }>;
}

/** The committed state at one state root. Returned objects are shared: callers copy accounts. */
export class StateSnapshot {
  private accounts = new Map<string, Account | null>();

  constructor(
    readonly content: ContentCache,
    readonly stateRoot: Uint8Array,
    /** The head's flat tables: read instead of the trie while they hold this root. */
    private readonly flat?: FlatState,
  ) {}

  get store(): TrieStore {
    return this.content.store;
  }

  /** The account as committed at this root, by its unprefixed hex key; never mutate it. */
  accountSync(key: string, address?: Uint8Array): Account | undefined {
    const hit = this.accounts.get(key);
    if (hit !== undefined) return hit ?? undefined;
    let account: Account | null;
    if (this.flat?.isAt(this.stateRoot)) account = this.flat.account(address ?? hexKeyToBytes(key)) ?? null;
    else {
      const rlp = trieGetSync(this.content.load, this.stateRoot, address ?? hexKeyToBytes(key));
      account = rlp === null ? null : createAccountFromRLP(rlp);
    }
    if (this.accounts.size >= MAX_ACCOUNTS) this.accounts = new Map();
    this.accounts.set(key, account);
    return account ?? undefined;
  }

  storageSync(storageRoot: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.content.storageSync(storageRoot, slot);
  }

  codeSync(codeHash: Uint8Array): Uint8Array {
    return this.content.codeByHashSync(codeHash);
  }

  /** The account at a 20-byte address; never mutate it. */
  account(address: Uint8Array): Account | undefined {
    return this.accountSync(bytesToHexKey(address), address);
  }

  balance(address: Uint8Array): bigint {
    return this.account(address)?.balance ?? 0n;
  }

  nonce(address: Uint8Array): bigint {
    return this.account(address)?.nonce ?? 0n;
  }

  /** The account's code; empty for accounts without any. */
  code(address: Uint8Array): Uint8Array {
    const account = this.account(address);
    if (account === undefined || equalsBytes(account.codeHash, KECCAK256_NULL)) return EMPTY;
    return this.codeSync(account.codeHash);
  }

  /** A storage slot (32-byte key) of the account, leading zeros stripped; empty when unset. */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    if (this.flat?.isAt(this.stateRoot)) return this.flat.storage(address, slot);
    const account = this.account(address);
    if (account === undefined || equalsBytes(account.storageRoot, KECCAK256_RLP)) return EMPTY;
    return this.storageSync(account.storageRoot, slot);
  }

  /** The state manager's asynchronous reads, for callers written against it (copies of accounts). */
  async getAccount(address: { bytes: Uint8Array }): Promise<Account | undefined> {
    const a = this.account(address.bytes);
    return a === undefined ? undefined : createAccountFromRLP(a.serialize());
  }

  async getCode(address: { bytes: Uint8Array }): Promise<Uint8Array> {
    return this.code(address.bytes);
  }

  async getStorage(address: { bytes: Uint8Array }, slot: Uint8Array): Promise<Uint8Array> {
    return this.storage(address.bytes, slot);
  }

  /** The account's and the slots' (32-byte keys) Merkle proofs at this root (EIP-1186). */
  proof(address: Uint8Array, slots: readonly Uint8Array[]): AccountProof {
    const load = this.content.load;
    const accountProof = trieProofSync(load, this.stateRoot, address);
    const account = this.account(address);
    const storageRoot = account?.storageRoot ?? KECCAK256_RLP;
    const storage = slots.map((slot) => ({
      slot,
      value: equalsBytes(storageRoot, KECCAK256_RLP) ? EMPTY : this.storageSync(storageRoot, slot),
      proof: trieProofSync(load, storageRoot, slot),
    }));
    return { account, accountProof, storage };
  }

  /** Whether the trie store holds a state root. */
  async hasRoot(root: Uint8Array): Promise<boolean> {
    return equalsBytes(root, KECCAK256_RLP) || this.content.load(bytesToHexKey(root)) !== undefined;
  }
}
