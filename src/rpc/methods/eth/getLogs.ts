/**
 * eth_getLogs: logs of one block (`blockHash`) or of a canonical range (`fromBlock`/`toBlock`,
 * default latest), filtered by address and topics. The filter object parser is shared with
 * eth_newFilter.
 */

import type { ChainStore } from '../../../chain/chainStore.js';
import { blockLogs, canonicalLogs, compileLogQuery, type LogQuery } from '../../../filters/logs.js';
import { resolveBlockNumber } from '../../blockParam.js';
import {
  BLOCK_NOT_FOUND,
  EXCEEDS_RPC_MAX_BLOCK_RANGE,
  INVALID_FILTER_PARAMS,
  INVALID_PARAMS,
  RpcError,
} from '../../errors.js';
import { hexToBytes } from '../../format/hex.js';
import { LogJsonCache } from '../../format/log.js';
import { address, type BlockParam, blockNumberParam, hash32 } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

const logCaches = new WeakMap<Services, LogJsonCache>();

/** Serialised logs kept per node (a log is a few hundred bytes of text). */
const LOG_CACHE_ENTRIES = 200_000;

function logCache(services: Services): LogJsonCache {
  let cache = logCaches.get(services);
  if (!cache) {
    cache = new LogJsonCache(LOG_CACHE_ENTRIES);
    logCaches.set(services, cache);
  }
  return cache;
}

type RangeParam = Exclude<BlockParam, { kind: 'hash' }>;

export interface LogFilterParams {
  fromBlock: RangeParam | undefined;
  toBlock: RangeParam | undefined;
  blockHash: Uint8Array | undefined;
  query: LogQuery;
}

function fail(): never {
  throw new RpcError(INVALID_FILTER_PARAMS);
}

function parseAddresses(value: unknown): Uint8Array[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((a) => hexToBytes(address(a, INVALID_FILTER_PARAMS)));
}

function parseTopics(value: unknown): (Uint8Array[] | null)[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail();
  return value.map((position) => {
    if (position === null) return null;
    if (typeof position === 'string') return [hexToBytes(hash32(position, INVALID_FILTER_PARAMS))];
    if (!Array.isArray(position)) fail();
    // A null among the alternatives matches anything, as the other clients read it.
    if (position.some((t) => t === null)) return null;
    return position.map((t) => hexToBytes(hash32(t, INVALID_FILTER_PARAMS)));
  });
}

/** The filter object of eth_getLogs and eth_newFilter (Besu's `FilterParameter`, `blockhash` accepted too). */
export function parseLogFilter(value: unknown): LogFilterParams {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail();
  const obj = value as Record<string, unknown>;
  const rawHash = obj.blockHash ?? obj.blockhash;
  const rangeParam = (v: unknown) =>
    v === undefined || v === null ? undefined : blockNumberParam(v, INVALID_FILTER_PARAMS);
  const fromBlock = rangeParam(obj.fromBlock);
  const toBlock = rangeParam(obj.toBlock);
  let blockHash: Uint8Array | undefined;
  if (rawHash !== undefined && rawHash !== null) {
    if (fromBlock !== undefined || toBlock !== undefined) fail();
    blockHash = hexToBytes(hash32(rawHash, INVALID_FILTER_PARAMS));
  }
  return {
    fromBlock,
    toBlock,
    blockHash,
    query: { addresses: parseAddresses(obj.address), topics: parseTopics(obj.topics) },
  };
}

const LATEST: RangeParam = { kind: 'tag', tag: 'latest' };

/** The inclusive canonical range a filter covers, with eth_getLogs' checks. */
export function logRange(chain: ChainStore, f: LogFilterParams): { from: bigint; to: bigint } {
  const head = chain.head().number;
  const from = resolveBlockNumber(chain, f.fromBlock ?? LATEST);
  const to = resolveBlockNumber(chain, f.toBlock ?? LATEST);
  if (from < 0n || to < 0n || from > to || to > head) throw new RpcError(INVALID_PARAMS);
  return { from, to };
}

export const ethGetLogs: RpcMethod = {
  name: 'eth_getLogs',
  group: 'ETH',
  handler(params, { services }) {
    const filter = parseLogFilter(params[0]);
    const chain = services.chain;
    const q = compileLogQuery(filter.query);
    if (filter.blockHash) {
      const header = chain.getHeader(filter.blockHash);
      if (!header) throw new RpcError(BLOCK_NOT_FOUND);
      return logCache(services).answer(blockLogs(chain, header, q));
    }
    const { from, to } = logRange(chain, filter);
    const max = services.config.rpcMaxLogsRange;
    if (max > 0 && to - from > BigInt(max)) throw new RpcError(EXCEEDS_RPC_MAX_BLOCK_RANGE);
    return logCache(services).answer(canonicalLogs(chain, from, to, q, services.logBloomCache));
  },
};
