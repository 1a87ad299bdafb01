/**
 * Poll filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter): in memory,
 * identified by 16 random bytes written as a quantity, expired 10 minutes after creation or the last
 * poll. Block and log filters are fed by the chain's `newHead` (logs of removed blocks come back with
 * `removed: true`), pending-transaction filters by the pool's `added` event.
 */
import { randomBytes } from 'node:crypto';
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import type { PooledTx, TxPool } from '../txpool/pool.js';
import { blockLogs, bloomMayMatch, type CompiledLogQuery, type LogEntry } from './logs.js';

export const FILTER_TIMEOUT_MS = 10 * 60 * 1000;
export const DEFAULT_MAX_FILTERS = 10_000;

export interface LogFilterSpec {
  query: CompiledLogQuery;
  /** Numeric toBlock, if any: later blocks feed nothing. Tags are unbounded. */
  toBlock: bigint | undefined;
  /** The parsed request, kept for eth_getFilterLogs to re-run. */
  request: unknown;
}

export type Filter =
  | { kind: 'block'; expiresAt: number; hashes: Uint8Array[] }
  | { kind: 'pendingTx'; expiresAt: number; hashes: Uint8Array[] }
  | { kind: 'log'; expiresAt: number; logs: LogEntry[]; spec: LogFilterSpec };

export class FilterLimitError extends Error {
  override name = 'FilterLimitError';
}

export interface FilterManagerOptions {
  now?: () => number;
  maxFilters?: number;
  timeoutMs?: number;
  /** Sweep period in ms (Besu: 10 s); 0 disables the timer (expiry is still checked on access). */
  sweepMs?: number;
  idGenerator?: () => string;
}

function randomId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '');
  return `0x${hex === '' ? '0' : hex}`;
}

export class FilterManager {
  private readonly filters = new Map<string, Filter>();
  private readonly now: () => number;
  private readonly timeoutMs: number;
  readonly maxFilters: number;
  private readonly newId: () => string;
  private timer: NodeJS.Timeout | undefined;
  private readonly onHead = (e: NewHeadEvent) => this.handleNewHead(e);
  private readonly onTx = (t: PooledTx) => {
    for (const f of this.filters.values()) if (f.kind === 'pendingTx') f.hashes.push(t.hash);
  };

  constructor(
    private readonly chain: ChainStore,
    private readonly pool: TxPool | undefined,
    opts: FilterManagerOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.timeoutMs = opts.timeoutMs ?? FILTER_TIMEOUT_MS;
    this.maxFilters = opts.maxFilters ?? DEFAULT_MAX_FILTERS;
    this.newId = opts.idGenerator ?? randomId;
    chain.on('newHead', this.onHead);
    pool?.on('added', this.onTx);
    const sweep = opts.sweepMs ?? 10_000;
    if (sweep > 0) {
      this.timer = setInterval(() => this.sweep(), sweep);
      this.timer.unref();
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.chain.off('newHead', this.onHead);
    this.pool?.off('added', this.onTx);
    this.filters.clear();
  }

  get size(): number {
    return this.filters.size;
  }

  /** Removes expired filters. */
  sweep(): void {
    const t = this.now();
    for (const [id, f] of this.filters) if (f.expiresAt <= t) this.filters.delete(id);
  }

  private install(f: Filter): string {
    this.sweep();
    if (this.filters.size >= this.maxFilters)
      throw new FilterLimitError(`at most ${this.maxFilters} filters`);
    let id = this.newId();
    while (this.filters.has(id)) id = this.newId();
    this.filters.set(id, f);
    return id;
  }

  newBlockFilter(): string {
    return this.install({ kind: 'block', expiresAt: this.now() + this.timeoutMs, hashes: [] });
  }

  newPendingTransactionFilter(): string {
    return this.install({ kind: 'pendingTx', expiresAt: this.now() + this.timeoutMs, hashes: [] });
  }

  newLogFilter(spec: LogFilterSpec): string {
    return this.install({ kind: 'log', expiresAt: this.now() + this.timeoutMs, logs: [], spec });
  }

  /** A live filter by id (ids compare as numbers); its timer restarts when `touch`. */
  get(id: string, touch = true): Filter | undefined {
    const f = this.filters.get(normaliseId(id));
    if (!f) return undefined;
    if (f.expiresAt <= this.now()) {
      this.filters.delete(normaliseId(id));
      return undefined;
    }
    if (touch) f.expiresAt = this.now() + this.timeoutMs;
    return f;
  }

  uninstall(id: string): boolean {
    const key = normaliseId(id);
    const f = this.filters.get(key);
    if (!f) return false;
    this.filters.delete(key);
    return f.expiresAt > this.now();
  }

  /** Takes what accumulated since the last poll. */
  changes(
    id: string,
  ): { kind: 'block' | 'pendingTx'; hashes: Uint8Array[] } | { kind: 'log'; logs: LogEntry[] } | undefined {
    const f = this.get(id);
    if (!f) return undefined;
    if (f.kind === 'log') {
      const logs = f.logs;
      f.logs = [];
      return { kind: 'log', logs };
    }
    const hashes = f.hashes;
    f.hashes = [];
    return { kind: f.kind, hashes };
  }

  handleNewHead(e: NewHeadEvent): void {
    if (this.filters.size === 0) return;
    for (const f of this.filters.values()) {
      if (f.kind === 'block') for (const b of e.added) f.hashes.push(b.hash());
      else if (f.kind === 'log') {
        const q = f.spec.query;
        for (const b of e.removed) {
          if (f.spec.toBlock !== undefined && b.header.number > f.spec.toBlock) continue;
          if (!bloomMayMatch(b.header.logsBloom, q)) continue;
          for (const log of blockLogs(this.chain, b.header, q, { removed: true, block: b })) f.logs.push(log);
        }
        for (const b of e.added) {
          if (f.spec.toBlock !== undefined && b.header.number > f.spec.toBlock) continue;
          if (!bloomMayMatch(b.header.logsBloom, q)) continue;
          for (const log of blockLogs(this.chain, b.header, q, { block: b })) f.logs.push(log);
        }
      }
    }
  }
}

/** `0x00ff` and `0xff` name the same filter, as Besu parses ids as numbers. */
export function normaliseId(id: string): string {
  const hex = id.toLowerCase().replace(/^0x/, '').replace(/^0+/, '');
  return `0x${hex === '' ? '0' : hex}`;
}
