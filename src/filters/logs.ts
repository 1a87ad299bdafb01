/**
 * Log matching shared by eth_getLogs, log filters and subscriptions: a query is compiled once (its
 * bloom bits precomputed), each block's header bloom is tested before its receipts are read.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { ChainStore } from '../chain/chainStore.js';
import { logBloomBits } from '../chain/logBloom.js';
import type { StoredReceipt } from '../chain/receipts.js';
import { type BlockLogCache, type BlockLogList, byteKey, type LogEntry, logEntry } from './blockLogCache.js';

export interface LogQuery {
  /** Matching addresses; empty matches any address. */
  addresses: readonly Uint8Array[];
  /**
   * One entry per topic position: the values allowed there (any of them), or null/empty for any value.
   * A log with fewer topics than the query has positions never matches.
   */
  topics: readonly (readonly Uint8Array[] | null)[];
}

export type { LogEntry } from './blockLogCache.js';

/** Three (byte index, mask) pairs per value, as set in a 2048-bit logs bloom. */
type BloomBits = Uint16Array;

export interface CompiledLogQuery {
  query: LogQuery;
  addressKeys: Set<string> | undefined;
  topicKeys: (Set<string> | undefined)[];
  /** Groups of alternatives: the bloom must contain at least one member of every group. */
  bloomGroups: BloomBits[][];
}

/** Bloom bits of addresses and topics seen in queries: the same few values come back request after request. */
const bloomBitsCache = new Map<string, BloomBits>();
const BLOOM_BITS_CACHE_ENTRIES = 10_000;

function bloomBits(value: Uint8Array, k: string = key(value)): BloomBits {
  const hit = bloomBitsCache.get(k);
  if (hit) return hit;
  const bits = logBloomBits(value);
  if (bloomBitsCache.size >= BLOOM_BITS_CACHE_ENTRIES) bloomBitsCache.clear();
  bloomBitsCache.set(k, bits);
  return bits;
}

const key = byteKey;

export function compileLogQuery(query: LogQuery): CompiledLogQuery {
  const bloomGroups: BloomBits[][] = [];
  let addressKeys: Set<string> | undefined;
  if (query.addresses.length > 0) {
    const keys = query.addresses.map(key);
    addressKeys = new Set(keys);
    bloomGroups.push(query.addresses.map((a, i) => bloomBits(a, keys[i])));
  }
  const topicKeys: (Set<string> | undefined)[] = [];
  for (const alternatives of query.topics) {
    if (alternatives === null || alternatives.length === 0) {
      topicKeys.push(undefined);
      continue;
    }
    const keys = alternatives.map(key);
    topicKeys.push(new Set(keys));
    bloomGroups.push(alternatives.map((t, i) => bloomBits(t, keys[i])));
  }
  return { query, addressKeys, topicKeys, bloomGroups };
}

function isZero(b: Uint8Array, offset: number): boolean {
  for (let i = offset; i < offset + 256; i++) if (b[i] !== 0) return false;
  return true;
}

/**
 * False when the bloom proves the block has no matching log. The bloom is the 256 bytes at `offset`
 * (blooms read from a cache file are tested in place).
 */
export function bloomMayMatch(bloom: Uint8Array, q: CompiledLogQuery, offset = 0): boolean {
  if (q.bloomGroups.length === 0) return !isZero(bloom, offset);
  for (const group of q.bloomGroups) {
    let any = false;
    for (const bits of group) {
      if (
        ((bloom[offset + (bits[0] as number)] as number) & (bits[1] as number)) !== 0 &&
        ((bloom[offset + (bits[2] as number)] as number) & (bits[3] as number)) !== 0 &&
        ((bloom[offset + (bits[4] as number)] as number) & (bits[5] as number)) !== 0
      ) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}

export function logMatches(address: Uint8Array, topics: readonly Uint8Array[], q: CompiledLogQuery): boolean {
  if (q.addressKeys !== undefined && !q.addressKeys.has(key(address))) return false;
  const positions = q.topicKeys;
  if (positions.length > topics.length) return false;
  for (let i = 0; i < positions.length; i++) {
    const allowed = positions[i];
    if (allowed !== undefined && !allowed.has(key(topics[i] as Uint8Array))) return false;
  }
  return true;
}

/** The entries of a cached block log list that the query matches (shared objects: never mutate them). */
export function matchLogList(list: BlockLogList, q: CompiledLogQuery): LogEntry[] {
  const entries = list.entries;
  const n = entries.length;
  if (n === 0) return [];
  const addresses = q.addressKeys;
  const positions = q.topicKeys;
  const out: LogEntry[] = [];
  for (let i = 0; i < n; i++) {
    if (addresses !== undefined && !addresses.has(list.addressKeys[i] as string)) continue;
    if (positions.length > 0) {
      const topics = list.topicKeys[i] as readonly string[];
      if (positions.length > topics.length) continue;
      let ok = true;
      for (let p = 0; p < positions.length; p++) {
        const allowed = positions[p];
        if (allowed !== undefined && !allowed.has(topics[p] as string)) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
    }
    out.push(entries[i] as LogEntry);
  }
  return out;
}

/**
 * Matching logs of one block (its header bloom already checked or not). `receipts` and `block` are
 * read from the chain when not given. `removed` marks logs of a block that left the canonical chain.
 * With `lists` (and neither `removed` nor `receipts`), the block's logs come from that cache.
 */
export function blockLogs(
  chain: ChainStore,
  header: BlockHeader,
  q: CompiledLogQuery,
  opts: { removed?: boolean; block?: Block; receipts?: readonly StoredReceipt[]; lists?: BlockLogCache } = {},
): LogEntry[] {
  const hash = header.hash();
  if (opts.lists !== undefined && opts.removed !== true && opts.receipts === undefined) {
    const list = opts.lists.get(header, hash);
    return list === undefined ? [] : matchLogList(list, q);
  }
  const receipts = opts.receipts ?? chain.getReceipts(hash);
  if (!receipts || receipts.length === 0) return [];
  const out: LogEntry[] = [];
  let txHashes: readonly Uint8Array[] | undefined;
  let logIndex = 0;
  for (let t = 0; t < receipts.length; t++) {
    const logs = (receipts[t] as StoredReceipt).logs;
    for (let l = 0; l < logs.length; l++, logIndex++) {
      const [address, topics, data] = logs[l] as StoredReceipt['logs'][number];
      if (!logMatches(address, topics, q)) continue;
      txHashes ??= opts.block
        ? opts.block.transactions.map((tx) => tx.hash())
        : (chain.getTxHashes(hash) ?? []);
      const txHash = txHashes[t];
      if (!txHash) continue;
      out.push(logEntry(address, topics, data, header, hash, txHash, t, logIndex, opts.removed ?? false));
    }
  }
  return out;
}

/** Where a range's blooms come from when not from the headers (the log bloom cache). */
export interface BloomSource {
  /**
   * Numbers of the canonical blocks in `from..to` whose bloom passes `mayMatch`, ascending; `mayMatch`
   * gets a buffer and the offset of the block's 256-byte bloom in it.
   */
  candidates(
    from: bigint,
    to: bigint,
    mayMatch: (blooms: Uint8Array, offset: number) => boolean,
  ): Iterable<bigint>;
  /** Whether `from..to` reaches a block whose bloom may come from a file (else headers are read). */
  covers(from: bigint, to: bigint): boolean;
  /** Decoded log lists of recently read blocks. */
  readonly logLists?: BlockLogCache;
}

/** Matching logs of the canonical blocks `from..to` (inclusive), oldest first. */
export function canonicalLogs(
  chain: ChainStore,
  from: bigint,
  to: bigint,
  q: CompiledLogQuery,
  blooms?: BloomSource,
): LogEntry[] {
  const out: LogEntry[] = [];
  for (const logs of canonicalLogBlocks(chain, from, to, q, blooms)) for (const log of logs) out.push(log);
  return out;
}

/**
 * The same logs block by block (each block that has matches yields its matching logs), read as the
 * caller iterates: a wide range is never held whole.
 */
export function* canonicalLogBlocks(
  chain: ChainStore,
  from: bigint,
  to: bigint,
  q: CompiledLogQuery,
  blooms?: BloomSource,
): Generator<LogEntry[]> {
  const lists = blooms?.logLists;
  if (blooms?.covers(from, to)) {
    for (const n of blooms.candidates(from, to, (bloom, offset) => bloomMayMatch(bloom, q, offset))) {
      if (lists !== undefined) {
        const hash = chain.canonicalHash(n);
        if (!hash) break;
        let list = lists.peek(hash);
        if (list === undefined) {
          const header = chain.getHeader(hash);
          if (!header) break;
          list = lists.load(header, hash);
        }
        const logs = list === undefined ? [] : matchLogList(list, q);
        if (logs.length > 0) yield logs;
        continue;
      }
      const header = chain.getHeaderByNumber(n);
      if (!header) break;
      const logs = blockLogs(chain, header, q);
      if (logs.length > 0) yield logs;
    }
    return;
  }
  if (lists !== undefined) {
    // Per block: the canonical hash and bloom from memory (from the store the first time), then the
    // block's cached log list, or its receipts once.
    for (let n = from; n <= to; n++) {
      const slot = lists.canonicalSlot(n);
      if (slot < 0) break;
      if (!bloomMayMatch(lists.blooms, q, slot * 256)) continue;
      let list = lists.peekKey(lists.slotHashKey(slot));
      if (list === undefined) {
        const hash = lists.slotHash(slot);
        const header = chain.getHeader(hash);
        if (!header) break;
        list = lists.load(header, hash);
        if (list === undefined) continue;
      }
      const logs = matchLogList(list, q);
      if (logs.length > 0) yield logs;
    }
    return;
  }
  for (let n = from; n <= to; n++) {
    const header = chain.getHeaderByNumber(n);
    if (!header) break;
    if (!bloomMayMatch(header.logsBloom, q)) continue;
    const logs = blockLogs(chain, header, q);
    if (logs.length > 0) yield logs;
  }
}
