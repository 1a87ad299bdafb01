/**
 * Log queries (eth_getLogs, GraphQL `logs`, filter polls): which blocks a query covers, the limits a
 * node puts on it, and the matching. Callers resolve block tags to numbers first; this module checks
 * the range against the chain and the configured limit, and throws `LogQueryError` (mapped to Besu's
 * answers in rpc/errors.ts) when the query cannot run.
 */
import type { ChainStore } from '../chain/chainStore.js';
import {
  type BloomSource,
  blockLogs,
  type CompiledLogQuery,
  canonicalLogBlocks,
  canonicalLogs,
  type LogEntry,
} from './logs.js';

export type LogQueryFailure =
  /** `blockHash` names no stored block. */
  | 'UNKNOWN_BLOCK_HASH'
  /** A bound below zero or beyond the head, or `from` after `to`. */
  | 'INVALID_RANGE'
  /** More blocks than `--rpc-max-logs-range` allows. */
  | 'RANGE_TOO_WIDE';

export class LogQueryError extends Error {
  override name = 'LogQueryError';
  constructor(readonly reason: LogQueryFailure) {
    super(reason);
  }
}

/** Where a query looks: one block by hash, or an inclusive range of canonical block numbers. */
export type LogScope = { blockHash: Uint8Array } | { from: bigint; to: bigint };

export interface LogQueryLimits {
  /** Largest `to - from` a range query may span; 0 or less is unlimited. */
  maxRange: number;
}

/** The inclusive canonical range `from`..`to`, checked against the head; throws `INVALID_RANGE`. */
export function checkLogRange(chain: ChainStore, from: bigint, to: bigint): { from: bigint; to: bigint } {
  const head = chain.head().number;
  if (from < 0n || to < 0n || from > to || to > head) throw new LogQueryError('INVALID_RANGE');
  return { from, to };
}

/**
 * The logs a compiled query matches within `scope`, in chain order. `blooms` (the log bloom cache)
 * supplies the blooms of full cached segments (the stored headers' for the rest) and the decoded log
 * lists of recently read blocks. Returned entries may be shared with later queries: never mutate them.
 */
export function queryLogs(
  chain: ChainStore,
  scope: LogScope,
  query: CompiledLogQuery,
  limits: LogQueryLimits,
  blooms?: BloomSource,
): LogEntry[] {
  if ('blockHash' in scope) {
    const header = chain.getHeader(scope.blockHash);
    if (!header) throw new LogQueryError('UNKNOWN_BLOCK_HASH');
    return blockLogs(chain, header, query, { lists: blooms?.logLists });
  }
  const { from, to } = checkLogRange(chain, scope.from, scope.to);
  if (limits.maxRange > 0 && to - from > BigInt(limits.maxRange)) throw new LogQueryError('RANGE_TOO_WIDE');
  return canonicalLogs(chain, from, to, query, blooms);
}

/**
 * `queryLogs` block by block: the scope and limits are checked now (and throw now), the logs are read
 * as the caller iterates.
 */
export function queryLogBlocks(
  chain: ChainStore,
  scope: LogScope,
  query: CompiledLogQuery,
  limits: LogQueryLimits,
  blooms?: BloomSource,
): Iterator<LogEntry[]> {
  if ('blockHash' in scope) return [queryLogs(chain, scope, query, limits, blooms)][Symbol.iterator]();
  const { from, to } = checkLogRange(chain, scope.from, scope.to);
  if (limits.maxRange > 0 && to - from > BigInt(limits.maxRange)) throw new LogQueryError('RANGE_TOO_WIDE');
  return canonicalLogBlocks(chain, from, to, query, blooms);
}
