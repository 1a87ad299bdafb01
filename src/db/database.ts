/**
 * One LMDB environment holding every store of the node as a named sub-database.
 * All writes that belong together (a block, its receipts, indexes, state nodes and the new head)
 * go through one `WriteBatch` committed in a single LMDB transaction, so a reader never sees half
 * of a block and a killed process restarts with everything it had committed.
 *
 * One process writes a data directory at a time: opening takes `alder.lock` in the database folder (a
 * file created exclusively, holding the owner's PID). A lock whose process no longer runs — left by a
 * SIGKILL or a crash — is taken over; a live owner makes the open fail with `DatabaseInUseError`.
 * A commit that fails for lack of space (LMDB map full, disk full) or permission throws
 * `StorageWriteError`: nothing of that batch is written, and what was committed before stays.
 */
import { closeSync, mkdirSync, openSync, readFileSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type Database as LmdbDb, open, type RootDatabase } from 'lmdb';

export const LOCK_FILE = 'alder.lock';

/** Another live process holds the data directory. */
export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
  constructor(
    readonly path: string,
    readonly ownerPid: number,
  ) {
    super(
      `Data directory ${path} is in use by another Alder process (pid ${ownerPid}); stop it first or choose another --data-path`,
    );
  }
}

/** The database cannot be opened or written (no space, no permission, map full). */
export class StorageWriteError extends Error {
  override name = 'StorageWriteError';
  constructor(
    readonly path: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Cannot write to the database in ${path}: ${reason}`, options);
  }
}

/** A readable cause for a failed LMDB write or open. */
function storageReason(err: unknown): string | undefined {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (code === 'MDB_MAP_FULL' || /MDB_MAP_FULL|map ?size|environment mapsize/i.test(message))
    return 'the database reached its maximum size (LMDB map full)';
  if (code === 'ENOSPC' || /ENOSPC|No space left/i.test(message)) return 'no space left on the device';
  if (
    code === 'EACCES' ||
    code === 'EPERM' ||
    code === 'EROFS' ||
    /EACCES|EROFS|Permission denied|read-only/i.test(message)
  )
    return 'permission denied or read-only file system';
  if (/MDB_PANIC|MDB_TXN_FULL|Input\/output error|EIO/i.test(message)) return message;
  return undefined;
}

function freeBytes(path: string): number {
  try {
    const fs = statfsSync(path);
    return fs.bavail * fs.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Lock files held by this process, by path, with how many open databases use each. */
const heldLocks = new Map<string, number>();
let exitHookInstalled = false;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

function acquireLock(dir: string): string {
  const lockPath = join(dir, LOCK_FILE);
  const held = heldLocks.get(lockPath);
  if (held !== undefined) {
    heldLocks.set(lockPath, held + 1);
    return lockPath;
  }
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx');
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'EEXIST') {
        const reason = storageReason(err) ?? (err as Error).message;
        throw new StorageWriteError(dir, reason, { cause: err });
      }
      let owner = Number.NaN;
      try {
        owner = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
      } catch {
        // vanished or unreadable: treat as stale
      }
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processAlive(owner))
        throw new DatabaseInUseError(dir, owner);
      if (attempt >= 2) throw new DatabaseInUseError(dir, owner);
      // Stale: its process is gone.
      try {
        unlinkSync(lockPath);
      } catch {
        // another process took it over meanwhile; the next attempt sees its PID
      }
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    heldLocks.set(lockPath, 1);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => {
        for (const path of heldLocks.keys()) removeLock(path);
      });
    }
    return lockPath;
  }
}

function removeLock(lockPath: string): void {
  try {
    if (readFileSync(lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(lockPath);
  } catch {
    // already gone
  }
}

function releaseLock(lockPath: string): void {
  const held = heldLocks.get(lockPath);
  if (held === undefined) return;
  if (held > 1) {
    heldLocks.set(lockPath, held - 1);
    return;
  }
  heldLocks.delete(lockPath);
  removeLock(lockPath);
}

export interface DatabaseOptions {
  /** Largest size the LMDB file may grow to, in bytes (default 1 TiB of address space). */
  mapSize?: number;
}

export const STORES = [
  'headers', // block hash → header RLP
  'bodies', // block hash → body RLP [txs, uncles, withdrawals?]
  'receipts', // block hash → RLP list of consensus-encoded receipts
  'senders', // block hash → concatenated 20-byte sender addresses
  'td', // block hash → total difficulty (big-endian bytes)
  'canonical', // 8-byte big-endian number → canonical block hash
  'txIndex', // tx hash → block hash (32) ‖ index (4, big-endian)
  'trie', // state trie nodes and contract code, by hash (archive: never deleted)
  'flatAccounts', // keccak(address) → account RLP, of the state named by meta flatRoot
  'flatStorage', // keccak(address) ‖ keccak(slot) → value (leading zeros stripped), same state
  'stateChanges', // block hash → the hashed keys of the accounts and slots the block changed
  'meta', // small named values: head, genesis, safe, finalized, schema, flatRoot
  'preimages', // keccak256 of an address or storage slot → the address or slot (debug ranges)
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

/** A write of a batch still being committed in the background: its value (undefined: deleted). */
interface InFlightWrite {
  value: Uint8Array | undefined;
  /** The batch that wrote it (a later batch's write to the same key replaces it). */
  seq: number;
}

/** Keys as strings whose order is the keys' byte order (one char per byte). */
function keyString(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}

/**
 * Batches as one transferable buffer, in order: per write its store, kind, key and value lengths,
 * key, value (a later write to the same key in the same transaction wins, as in LMDB).
 */
function packBatches(batches: WriteBatch[]): Uint8Array {
  let size = 0;
  for (const batch of batches)
    for (const op of batch.ops) size += 8 + op.key.length + (op.value?.length ?? 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const batch of batches) {
    for (const op of batch.ops) {
      out[at] = STORE_INDEX.get(op.store) as number;
      out[at + 1] = op.value === undefined ? 1 : 0;
      view.setUint16(at + 2, op.key.length);
      view.setUint32(at + 4, op.value?.length ?? 0);
      out.set(op.key, at + 8);
      at += 8 + op.key.length;
      if (op.value !== undefined) {
        out.set(op.value, at);
        at += op.value.length;
      }
    }
  }
  return out;
}

/** The most batches one grouped transaction of `commitAsync` takes. */
export const MAX_GROUP_BATCHES = 64;
/** The most writes one grouped transaction takes (a bound on its packed size and commit time). */
const MAX_GROUP_WRITES = 400_000;

/** A batch handed to `commitAsync`, waiting for its transaction (see `Database.pending`). */
interface QueuedBatch {
  batch: WriteBatch;
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const STORE_INDEX = new Map<StoreName, number>(STORES.map((name, i) => [name, i]));

/**
 * The commit thread (an evaluated CommonJS worker): opens the same LMDB environment and applies each
 * packed group of batches in one synchronous, durable transaction, in the order received.
 */
const COMMIT_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { open } = require(workerData.lmdb);
const root = open({ path: workerData.path, maxDbs: workerData.maxDbs, mapSize: workerData.mapSize });
const stores = workerData.stores.map((name) => root.openDB({ name, encoding: 'binary', keyEncoding: 'binary' }));
parentPort.on('message', (m) => {
  if (m.close) {
    Promise.resolve(root.close()).finally(() => process.exit(0));
    return;
  }
  const { seq, packed } = m;
  try {
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    root.transactionSync(() => {
      let at = 0;
      while (at < packed.length) {
        const db = stores[packed[at]];
        const del = packed[at + 1] === 1;
        const keyLength = view.getUint16(at + 2);
        const valueLength = view.getUint32(at + 4);
        const key = packed.subarray(at + 8, at + 8 + keyLength);
        at += 8 + keyLength;
        if (del) db.removeSync(key);
        else db.putSync(key, packed.subarray(at, at + valueLength));
        at += valueLength;
      }
    });
    parentPort.postMessage({ seq });
  } catch (err) {
    parentPort.postMessage({ seq, error: { message: String(err && err.message || err), code: err && err.code } });
  }
});
`;

export class Database {
  private readonly root: RootDatabase;
  private readonly stores: Record<StoreName, LmdbDb<Uint8Array, Uint8Array>>;
  private lockPath: string | undefined;
  private readonly failureListeners: Array<(err: StorageWriteError) => void> = [];
  /** The error each failed commit was reported as (see `failed`). */
  private readonly failures = new WeakMap<object, StorageWriteError>();
  /**
   * The writes of batches handed to `commitAsync` and not yet committed, by store and key: reads
   * answer from here first, so a batch is visible to this process from the moment it is handed over.
   */
  private readonly inFlight = new Map<StoreName, Map<string, InFlightWrite>>();
  private inFlightBatches = 0;
  private batchSeq = 0;
  private lastAsync: Promise<void> = Promise.resolve();
  private committer: Worker | undefined;
  /** Batches handed to `commitAsync` while a transaction was being written: the next one takes them. */
  private pending: QueuedBatch[] = [];
  /**
   * Set once a background commit failed: every later `commitAsync` rejects with it, so that no batch
   * handed over before its caller heard of the failure (it may build on what was lost) is written.
   */
  private asyncFailure: unknown;
  /** The group being written on the commit thread, by the seq of its last batch. */
  private readonly commits = new Map<number, QueuedBatch[]>();

  private constructor(
    readonly path: string,
    root: RootDatabase,
    stores: Record<StoreName, LmdbDb<Uint8Array, Uint8Array>>,
    lockPath: string,
    private readonly mapSize: number,
  ) {
    this.root = root;
    this.stores = stores;
    this.lockPath = lockPath;
  }

  static open(path: string, options: DatabaseOptions = {}): Database {
    try {
      mkdirSync(path, { recursive: true });
    } catch (err) {
      throw new StorageWriteError(path, storageReason(err) ?? (err as Error).message, { cause: err });
    }
    const lockPath = acquireLock(path);
    try {
      const mapSize = options.mapSize ?? 2 ** 40;
      const root = open({ path, maxDbs: STORES.length + 4, mapSize });
      const stores = {} as Record<StoreName, LmdbDb<Uint8Array, Uint8Array>>;
      for (const name of STORES) {
        stores[name] = root.openDB<Uint8Array, Uint8Array>({
          name,
          encoding: 'binary',
          keyEncoding: 'binary',
        });
      }
      return new Database(path, root, stores, lockPath, mapSize);
    } catch (err) {
      releaseLock(lockPath);
      const reason = storageReason(err);
      if (reason !== undefined) throw new StorageWriteError(path, reason, { cause: err });
      throw err;
    }
  }

  get(store: StoreName, key: Uint8Array): Uint8Array | undefined {
    if (this.inFlightBatches > 0) {
      const w = this.inFlight.get(store)?.get(keyString(key));
      if (w !== undefined) return w.value;
    }
    const v = this.stores[store].getBinary(key) as Buffer | undefined;
    return v === undefined ? undefined : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  }

  has(store: StoreName, key: Uint8Array): boolean {
    if (this.inFlightBatches > 0) {
      const w = this.inFlight.get(store)?.get(keyString(key));
      if (w !== undefined) return w.value !== undefined;
    }
    return this.stores[store].doesExist(key);
  }

  /**
   * Applies every write of the batch in one LMDB transaction. Not to be mixed with a `commitAsync`
   * still running on the same keys (the importer's queue orders them).
   */
  commit(batch: WriteBatch): void {
    if (batch.size === 0) return;
    try {
      this.root.transactionSync(() => {
        for (const op of batch.ops) {
          const db = this.stores[op.store];
          if (op.value === undefined) db.removeSync(op.key);
          else db.putSync(op.key, op.value);
        }
      });
    } catch (err) {
      throw this.failed(err);
    }
  }

  /**
   * Applies every write of the batch in one LMDB transaction, written and flushed to disk on the
   * database's commit thread while this one goes on: the batch is readable here at once (see
   * `inFlight`), and the promise settles once the transaction is committed and durable.
   *
   * Batches handed over while an earlier transaction is being written wait for it and then commit
   * together, in one transaction (at most MAX_GROUP_BATCHES batches), so that a burst of batches
   * pays for one flush to disk, not one each. Batches commit in the order they were handed over and
   * each group atomically, so a killed process restarts with a prefix of them: every batch whose
   * promise had resolved, and nothing of a group that had not. A failed commit rejects with
   * `StorageWriteError` (after the failure listeners heard of it) every batch of its group and every
   * batch handed over behind it or later, and writes nothing of them.
   */
  commitAsync(batch: WriteBatch): Promise<void> {
    return this.handOver(batch, true);
  }

  /**
   * Applies every write of the batch in one LMDB transaction on the database's commit thread, like
   * `commitAsync`, but readable only once that transaction is committed and durable: until the promise
   * resolves, reads here see the database as it was. The thread that hands the batch over goes on
   * meanwhile (a block built here is answered for only once it is durable). Ordered and grouped with
   * `commitAsync`'s batches; a failure rejects as theirs do.
   */
  commitDurable(batch: WriteBatch): Promise<void> {
    return this.handOver(batch, false);
  }

  /** `commitAsync` (`readable` at once) and `commitDurable`. */
  private handOver(batch: WriteBatch, readable: boolean): Promise<void> {
    if (this.asyncFailure !== undefined) return Promise.reject(this.asyncFailure);
    if (batch.size === 0) return this.lastAsync;
    const seq = ++this.batchSeq;
    // The overlay's keys, kept for `settle` (computing them costs as much as the map operations).
    const keys = readable ? this.overlay(batch, seq) : undefined;
    const done = new Promise<void>((resolve, reject) => {
      this.pending.push({ batch, seq, resolve, reject });
      if (this.commits.size === 0) this.dispatch();
    }).then(
      () => {
        // Reads here start a new read transaction, which sees the commit.
        this.root.resetReadTxn();
        if (keys !== undefined) this.settle(batch, seq, keys);
      },
      (err) => {
        if (keys !== undefined) this.settle(batch, seq, keys);
        throw this.failed(err);
      },
    );
    this.lastAsync = done.catch(() => undefined);
    return done;
  }

  /** Makes the batch's writes readable here before they are committed (see `inFlight`); their keys. */
  private overlay(batch: WriteBatch, seq: number): string[] {
    const keys = new Array<string>(batch.ops.length);
    let writes: Map<string, InFlightWrite> | undefined;
    let store: StoreName | undefined;
    for (let i = 0; i < batch.ops.length; i++) {
      const op = batch.ops[i];
      if (op.store !== store) {
        store = op.store;
        writes = this.inFlight.get(store);
        if (writes === undefined) {
          writes = new Map();
          this.inFlight.set(store, writes);
        }
      }
      const key = keyString(op.key);
      keys[i] = key;
      (writes as Map<string, InFlightWrite>).set(key, { value: op.value, seq });
    }
    this.inFlightBatches++;
    return keys;
  }

  /** Hands the oldest waiting batches (one group) to the commit thread. */
  private dispatch(): void {
    if (this.pending.length === 0) return;
    let writes = 0;
    let count = 0;
    while (count < this.pending.length && count < MAX_GROUP_BATCHES) {
      const size = this.pending[count].batch.size;
      if (count > 0 && writes + size > MAX_GROUP_WRITES) break;
      writes += size;
      count++;
    }
    const group = this.pending.slice(0, count);
    this.pending = this.pending.slice(count);
    let worker: Worker;
    try {
      worker = this.commitThread();
    } catch (err) {
      this.fail(group, err);
      return;
    }
    const seq = group[group.length - 1].seq;
    const packed = packBatches(group.map((q) => q.batch));
    this.commits.set(seq, group);
    worker.ref();
    worker.postMessage({ seq, packed }, [packed.buffer as ArrayBuffer]);
  }

  /**
   * Rejects a group and every batch waiting behind it (they build on it); later batches are refused
   * too (see `asyncFailure`).
   */
  private fail(group: QueuedBatch[], err: unknown): void {
    this.asyncFailure ??= this.failed(err);
    const behind = this.pending;
    this.pending = [];
    for (const q of group) q.reject(err);
    for (const q of behind) q.reject(err);
  }

  /** The thread `commitAsync` commits on (started on first use, over the same environment). */
  private commitThread(): Worker {
    if (this.committer !== undefined) return this.committer;
    const require = createRequire(import.meta.url);
    const worker = new Worker(COMMIT_THREAD_SOURCE, {
      eval: true,
      workerData: {
        lmdb: require.resolve('lmdb'),
        path: this.path,
        maxDbs: STORES.length + 4,
        mapSize: this.mapSize,
        stores: STORES,
      },
    });
    worker.on('message', (m: { seq: number; error?: { message: string; code?: unknown } }) => {
      const group = this.commits.get(m.seq);
      if (group === undefined) return;
      this.commits.delete(m.seq);
      if (m.error === undefined) {
        for (const q of group) q.resolve();
        this.dispatch();
      } else this.fail(group, Object.assign(new Error(m.error.message), { code: m.error.code }));
      if (this.commits.size === 0) worker.unref();
    });
    const fail = (err: unknown) => {
      this.committer = undefined;
      const groups = [...this.commits.values()];
      this.commits.clear();
      for (const group of groups) this.fail(group, err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.commits.size > 0) fail(new Error(`the commit thread stopped (exit code ${code})`));
      this.committer = undefined;
    });
    // Only commits in flight keep the process alive.
    worker.unref();
    this.committer = worker;
    return worker;
  }

  /** Resolves once every batch handed to `commitAsync` so far is committed (or failed). */
  whenCommitted(): Promise<void> {
    return this.lastAsync;
  }

  private settle(batch: WriteBatch, seq: number, keys: string[]): void {
    this.inFlightBatches--;
    let writes: Map<string, InFlightWrite> | undefined;
    let store: StoreName | undefined;
    for (let i = 0; i < batch.ops.length; i++) {
      const op = batch.ops[i];
      if (op.store !== store) {
        store = op.store;
        writes = this.inFlight.get(store);
      }
      const key = keys[i];
      if (writes?.get(key)?.seq === seq) writes.delete(key);
    }
  }

  /** The error a failed write throws; storage failures also go to the failure listeners (once each). */
  private failed(err: unknown): unknown {
    if (typeof err === 'object' && err !== null) {
      const known = this.failures.get(err);
      if (known !== undefined) return known;
    }
    let reason = storageReason(err);
    if (reason === undefined) return err;
    // LMDB reports a write that ran out of space as an I/O error: say which it was.
    if (!reason.includes('space') && freeBytes(this.path) < 4 * 1024 * 1024)
      reason = `no space left on the device (${reason})`;
    const failure = new StorageWriteError(this.path, reason, { cause: err });
    // Every batch of a failed group rejects with the same error: it is one failure.
    if (typeof err === 'object' && err !== null) this.failures.set(err, failure);
    for (const listener of this.failureListeners) listener(failure);
    return failure;
  }

  /** Called on every commit that fails for lack of space or permission (the node stops on it). */
  onWriteFailure(listener: (err: StorageWriteError) => void): void {
    this.failureListeners.push(listener);
  }

  /** Iterates keys of a store in order, from `start` (inclusive) to `end` (exclusive). */
  *range(
    store: StoreName,
    start?: Uint8Array,
    end?: Uint8Array,
  ): Generator<{ key: Uint8Array; value: Uint8Array }> {
    const writes = this.inFlightBatches > 0 ? this.inFlight.get(store) : undefined;
    if (writes === undefined || writes.size === 0) {
      for (const { key, value } of this.stores[store].getRange({ start, end })) {
        yield { key: key as Uint8Array, value: value as Uint8Array };
      }
      return;
    }
    // Batches still being committed take part: the range is gathered and merged in key order.
    const from = start === undefined ? undefined : keyString(start);
    const to = end === undefined ? undefined : keyString(end);
    const merged = new Map<string, { key: Uint8Array; value: Uint8Array | undefined }>();
    for (const { key, value } of this.stores[store].getRange({ start, end }))
      merged.set(keyString(key as Uint8Array), { key: key as Uint8Array, value: value as Uint8Array });
    for (const [k, w] of writes) {
      if ((from !== undefined && k < from) || (to !== undefined && k >= to)) continue;
      merged.set(k, { key: new Uint8Array(Buffer.from(k, 'latin1')), value: w.value });
    }
    const keys = [...merged.keys()].sort();
    for (const k of keys) {
      const e = merged.get(k) as { key: Uint8Array; value: Uint8Array | undefined };
      if (e.value !== undefined) yield { key: e.key, value: e.value };
    }
  }

  async close(): Promise<void> {
    try {
      await this.lastAsync;
      const committer = this.committer;
      this.committer = undefined;
      if (committer !== undefined) {
        const exited = new Promise((resolve) => committer.once('exit', resolve));
        committer.ref();
        committer.postMessage({ close: true });
        await exited;
      }
      await this.root.close();
    } finally {
      if (this.lockPath !== undefined) releaseLock(this.lockPath);
      this.lockPath = undefined;
    }
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
