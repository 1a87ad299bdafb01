/**
 * One LMDB environment holding every store of the node as a named sub-database.
 * All writes that belong together (a block, its receipts, indexes, state nodes and the new head)
 * go through one `WriteBatch` committed in a single LMDB transaction, so a reader never sees half
 * of a block and a killed process restarts with everything it had committed.
 */
import { mkdirSync } from 'node:fs';
import { type Database as LmdbDb, open, type RootDatabase } from 'lmdb';

export const STORES = [
  'headers', // block hash → header RLP
  'bodies', // block hash → body RLP [txs, uncles, withdrawals?]
  'receipts', // block hash → RLP list of consensus-encoded receipts
  'senders', // block hash → concatenated 20-byte sender addresses
  'td', // block hash → total difficulty (big-endian bytes)
  'canonical', // 8-byte big-endian number → canonical block hash
  'txIndex', // tx hash → block hash (32) ‖ index (4, big-endian)
  'trie', // state trie nodes and contract code, by hash (archive: never deleted)
  'meta', // small named values: head, genesis, safe, finalized, schema
] as const;
export type StoreName = (typeof STORES)[number];

type Op = { store: StoreName; key: Uint8Array; value: Uint8Array | undefined };

/** Writes collected in memory and applied atomically by `Database.commit`. */
export class WriteBatch {
  readonly ops: Op[] = [];
  put(store: StoreName, key: Uint8Array, value: Uint8Array): void {
    this.ops.push({ store, key, value });
  }
  del(store: StoreName, key: Uint8Array): void {
    this.ops.push({ store, key, value: undefined });
  }
  get size(): number {
    return this.ops.length;
  }
}

export class Database {
  private readonly root: RootDatabase;
  private readonly stores: Record<StoreName, LmdbDb<Uint8Array, Uint8Array>>;

  private constructor(root: RootDatabase, stores: Record<StoreName, LmdbDb<Uint8Array, Uint8Array>>) {
    this.root = root;
    this.stores = stores;
  }

  static open(path: string): Database {
    mkdirSync(path, { recursive: true });
    const root = open({ path, maxDbs: STORES.length + 4, mapSize: 2 ** 40 });
    const stores = {} as Record<StoreName, LmdbDb<Uint8Array, Uint8Array>>;
    for (const name of STORES) {
      stores[name] = root.openDB<Uint8Array, Uint8Array>({ name, encoding: 'binary', keyEncoding: 'binary' });
    }
    return new Database(root, stores);
  }

  get(store: StoreName, key: Uint8Array): Uint8Array | undefined {
    const v = this.stores[store].getBinary(key) as Buffer | undefined;
    return v === undefined ? undefined : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }

  has(store: StoreName, key: Uint8Array): boolean {
    return this.stores[store].doesExist(key);
  }

  /** Applies every write of the batch in one LMDB transaction. */
  commit(batch: WriteBatch): void {
    if (batch.size === 0) return;
    this.root.transactionSync(() => {
      for (const op of batch.ops) {
        const db = this.stores[op.store];
        if (op.value === undefined) db.removeSync(op.key);
        else db.putSync(op.key, op.value);
      }
    });
  }

  /** Iterates keys of a store in order, from `start` (inclusive) to `end` (exclusive). */
  *range(
    store: StoreName,
    start?: Uint8Array,
    end?: Uint8Array,
  ): Generator<{ key: Uint8Array; value: Uint8Array }> {
    for (const { key, value } of this.stores[store].getRange({ start, end })) {
      yield { key: key as Uint8Array, value: value as Uint8Array };
    }
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}

export function numberKey(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

const enc = new TextEncoder();
export function metaKey(name: string): Uint8Array {
  return enc.encode(name);
}
