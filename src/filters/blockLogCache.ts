/**
 * The logs of recently queried blocks, decoded once. A block's receipts are decoded into `LogEntry`
 * objects the first time a query reaches the block; each log's address and topics are also kept as
 * string keys, so later queries match with set lookups and never decode the receipts again. Lists are
 * keyed by block hash, content that never changes meaning: a reorg leaves nothing to invalidate.
 *
 * The entries are shared by every query that matches them (callers never mutate a `LogEntry`), which
 * also lets the JSON layer keep each log's text beside its entry. The cache is bounded by the number of
 * logs it holds; the least recently used blocks leave first.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import { decodeReceipt, type LogTuple } from '../chain/receipts.js';

/** A log with everything needed to present it; `logIndex` counts across the whole block. */
export interface LogEntry {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  blockNumber: bigint;
  blockHash: Uint8Array;
  blockTimestamp: bigint;
  transactionHash: Uint8Array;
  transactionIndex: number;
  logIndex: number;
  removed: boolean;
}

/**
 * The one constructor of `LogEntry` (every entry has the same shape, so the code reading entries stays
 * monomorphic). `logIndex` counts across the whole block.
 */
export function logEntry(
  address: Uint8Array,
  topics: Uint8Array[],
  data: Uint8Array,
  header: BlockHeader,
  blockHash: Uint8Array,
  transactionHash: Uint8Array,
  transactionIndex: number,
  logIndex: number,
  removed: boolean,
): LogEntry {
  return {
    address,
    topics,
    data,
    blockNumber: header.number,
    blockHash,
    blockTimestamp: header.timestamp,
    transactionHash,
    transactionIndex,
    logIndex,
    removed,
  };
}

/** Logs held across all cached blocks (a block without logs counts as one). */
export const DEFAULT_MAX_CACHED_LOGS = 32_768;
/** Canonical blocks whose hash and bloom are kept in memory (slot = number mod this; ~2.3 MiB). */
export const CANONICAL_SLOTS = 8192;

/** A block's logs in block order, with the byte strings of addresses and topics as map keys. */
export interface BlockLogList {
  /** The block's logs bloom, tested before the list is matched. */
  bloom: Uint8Array;
  entries: readonly LogEntry[];
  addressKeys: readonly string[];
  topicKeys: readonly (readonly string[])[];
}

/** The bytes as a one-byte-per-character string: what log queries compare addresses and topics by. */
export function byteKey(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1');
}

const EMPTY: readonly never[] = Object.freeze([]);

/**
 * The logs bloom of a stored block, read from its header RLP without decoding the header (the bloom is
 * the seventh field, after six fixed-size fields); undefined when the layout differs or the header is
 * missing.
 */
export function storedBloom(chain: ChainStore, hash: Uint8Array): Uint8Array | undefined {
  const raw = chain.getRawHeader(hash);
  if (raw === undefined) return undefined;
  const b0 = raw[0] as number;
  const listHeader = b0 >= 0xf8 ? 1 + (b0 - 0xf7) : 1;
  // parentHash, ommersHash (33 each), coinbase (21), stateRoot, transactionsRoot, receiptsRoot (33 each).
  const at = listHeader + 33 * 2 + 21 + 33 * 3;
  if (raw[at] === 0xb9 && raw[at + 1] === 0x01 && raw[at + 2] === 0x00 && raw.length >= at + 3 + 256)
    return raw.subarray(at + 3, at + 3 + 256);
  return undefined;
}

export class BlockLogCache {
  private readonly lists = new Map<string, BlockLogList>();
  private held = 0;
  /**
   * Canonical hash and bloom by block number, for range queries over blocks no bloom file covers:
   * slot `n mod CANONICAL_SLOTS` holds block `numbers[slot]` (-1: empty). Allocated on first use;
   * slots of blocks that leave the canonical chain are emptied when the chain says so.
   */
  private numbers: Float64Array | undefined;
  private hashes: Uint8Array | undefined;
  /** The blooms of the slots, 256 bytes each (tested in place). */
  blooms: Uint8Array = new Uint8Array(0);
  private readonly onHead = (e: NewHeadEvent): void => this.forget(e);

  constructor(
    private readonly chain: ChainStore,
    private readonly maxLogs = DEFAULT_MAX_CACHED_LOGS,
  ) {}

  /** The cached list of the block with this hash, if any (marked as recently used). */
  peek(hash: Uint8Array): BlockLogList | undefined {
    return this.peekKey(byteKey(hash));
  }

  /** The block's log list, from the cache or decoded from its stored receipts (undefined if none). */
  get(header: BlockHeader, hash: Uint8Array = header.hash()): BlockLogList | undefined {
    return this.peek(hash) ?? this.load(header, hash);
  }

  /** Decodes a block's logs and keeps them. */
  load(header: BlockHeader, hash: Uint8Array = header.hash()): BlockLogList | undefined {
    const raw = this.chain.getRawReceipts(hash);
    if (raw === undefined) return undefined;
    const entries: LogEntry[] = [];
    const addressKeys: string[] = [];
    const topicKeys: string[][] = [];
    let txHashes: readonly Uint8Array[] | undefined;
    let logIndex = 0;
    for (let t = 0; t < raw.length; t++) {
      const logs: LogTuple[] = decodeReceipt(raw[t] as Uint8Array).logs;
      if (logs.length === 0) continue;
      txHashes ??= this.chain.getTxHashes(hash) ?? EMPTY;
      const transactionHash = txHashes[t];
      if (transactionHash === undefined) {
        logIndex += logs.length;
        continue;
      }
      for (const [address, topics, data] of logs) {
        entries.push(logEntry(address, topics, data, header, hash, transactionHash, t, logIndex++, false));
        addressKeys.push(byteKey(address));
        topicKeys.push(topics.map(byteKey));
      }
    }
    const list: BlockLogList =
      entries.length === 0
        ? { bloom: header.logsBloom, entries: EMPTY, addressKeys: EMPTY, topicKeys: EMPTY }
        : { bloom: header.logsBloom, entries, addressKeys, topicKeys };
    this.keep(byteKey(hash), list);
    return list;
  }

  private keep(key: string, list: BlockLogList): void {
    const weight = (l: BlockLogList): number => Math.max(1, l.entries.length);
    const old = this.lists.get(key);
    if (old !== undefined) {
      this.lists.delete(key);
      this.held -= weight(old);
    }
    this.lists.set(key, list);
    this.held += weight(list);
    while (this.held > this.maxLogs && this.lists.size > 1) {
      const [oldestKey, oldest] = this.lists.entries().next().value as [string, BlockLogList];
      this.lists.delete(oldestKey);
      this.held -= weight(oldest);
    }
  }

  /**
   * The slot holding canonical block `n`'s hash and bloom (`blooms` at `slot * 256`), filled from the
   * store when needed; -1 when there is no such canonical block.
   */
  canonicalSlot(n: bigint): number {
    if (this.numbers === undefined) {
      this.numbers = new Float64Array(CANONICAL_SLOTS).fill(-1);
      this.hashes = new Uint8Array(CANONICAL_SLOTS * 32);
      this.blooms = new Uint8Array(CANONICAL_SLOTS * 256);
      this.chain.on('newHead', this.onHead);
    }
    const num = Number(n);
    const slot = num % CANONICAL_SLOTS;
    if (this.numbers[slot] === num) return slot;
    const hash = this.chain.canonicalHash(n);
    if (hash === undefined) return -1;
    const bloom = storedBloom(this.chain, hash) ?? this.chain.getHeader(hash)?.logsBloom;
    if (bloom === undefined) return -1;
    (this.hashes as Uint8Array).set(hash, slot * 32);
    this.blooms.set(bloom, slot * 256);
    this.numbers[slot] = num;
    return slot;
  }

  /** The key (`byteKey`) of the hash in a canonical slot. */
  slotHashKey(slot: number): string {
    const h = this.hashes as Uint8Array;
    return Buffer.from(h.buffer, h.byteOffset + slot * 32, 32).toString('latin1');
  }

  /** A copy of the hash in a canonical slot. */
  slotHash(slot: number): Uint8Array {
    return (this.hashes as Uint8Array).slice(slot * 32, slot * 32 + 32);
  }

  /** The cached list under a key from `slotHashKey`, if any (marked as recently used). */
  peekKey(key: string): BlockLogList | undefined {
    const hit = this.lists.get(key);
    if (hit !== undefined && this.lists.size > 1) {
      this.lists.delete(key);
      this.lists.set(key, hit);
    }
    return hit;
  }

  /** Blocks that left the canonical chain leave their slots. */
  private forget(e: NewHeadEvent): void {
    const numbers = this.numbers;
    if (numbers === undefined) return;
    for (const b of e.removed) {
      const num = Number(b.header.number);
      const slot = num % CANONICAL_SLOTS;
      if (numbers[slot] === num) numbers[slot] = -1;
    }
  }

  /** Stops following the chain (the slots are dropped). */
  close(): void {
    if (this.numbers === undefined) return;
    this.chain.off('newHead', this.onHead);
    this.numbers = undefined;
    this.hashes = undefined;
    this.blooms = new Uint8Array(0);
  }

  /** Logs held (for tests and metrics). */
  get size(): number {
    return this.held;
  }
}
