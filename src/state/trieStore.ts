/**
 * The key-value store under every Merkle-Patricia trie of the world state (account trie, storage
 * tries and contract code). Reads go to LMDB; writes are held in memory until the block that made
 * them is committed, then move into that block's write batch. Nodes are never deleted (archive).
 */
import type { BatchDBOp, DB } from '@ethereumjs/util';
import type { Database, WriteBatch } from '../db/database.js';

export function hexKeyToBytes(hex: string): Uint8Array {
  const b = Buffer.from(hex, 'hex');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** Unprefixed lowercase hex; the native encoder builds the flat string at once (~2× a table loop). */
export function bytesToHexKey(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

const HEX_KEY = Symbol('hexKey');

/**
 * `bytesToHexKey(address.bytes)`, kept on the Address object: execution asks the state about the same
 * sender, recipient and coinbase objects several times per transaction (validation, the message, the
 * fees, EIP-161 clean-up). An Address never changes its bytes.
 */
export function addressKey(address: { bytes: Uint8Array }): string {
  const a = address as { bytes: Uint8Array; [HEX_KEY]?: string };
  let key = a[HEX_KEY];
  if (key === undefined) {
    key = bytesToHexKey(address.bytes);
    a[HEX_KEY] = key;
  }
  return key;
}

export class TrieStore implements DB<string, Uint8Array> {
  private pending = new Map<string, Uint8Array>();
  /** The byte form of pending keys whose writer had it (spares converting them back from hex). */
  private pendingKeys = new Map<string, Uint8Array>();
  /** `getSync` as a free function (the synchronous trie readers take a loader). */
  readonly load: (key: string) => Uint8Array | undefined;

  constructor(readonly db: Database) {
    this.load = (key) => this.getSync(key);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.getSync(key);
  }

  /** LMDB reads are synchronous: the same read without a promise (see `syncTrie.ts`). */
  getSync(key: string): Uint8Array | undefined {
    return this.pending.get(key) ?? this.db.get('trie', hexKeyToBytes(key));
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    this.pending.set(key, value);
  }

  /** `put` without a promise, for the synchronous trie writer; `keyBytes` is `key` as bytes, if at hand. */
  putSync(key: string, value: Uint8Array, keyBytes?: Uint8Array): void {
    this.pending.set(key, value);
    if (keyBytes !== undefined) this.pendingKeys.set(key, keyBytes);
  }

  async del(_key: string): Promise<void> {
    // Archive node: trie nodes stay, so that every block's state can still be read and proven.
  }

  async batch(ops: BatchDBOp<string, Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') this.pending.set(op.key, op.value);
  }

  shallowCopy(): DB<string, Uint8Array> {
    return this;
  }

  open(): Promise<void> {
    return Promise.resolve();
  }

  /** Moves the held writes into `batch`; call right before the batch is committed. */
  drainInto(batch: WriteBatch): void {
    const known = this.pendingKeys;
    for (const [k, v] of this.pending) batch.put('trie', known.get(k) ?? hexKeyToBytes(k), v);
    this.pending = new Map();
    this.pendingKeys = new Map();
  }

  /** Forgets held writes (the block that made them was invalid). */
  discard(): void {
    this.pending = new Map();
    this.pendingKeys = new Map();
  }
}
