/**
 * The filter object of eth_getLogs and eth_newFilter (Besu's `FilterParameter`, `blockhash` accepted
 * too) as one decoder: any malformed member is `Invalid filter params`.
 */
import type { ChainStore } from '../../chain/chainStore.js';
import type { LogScope } from '../../filters/logQuery.js';
import type { LogQuery } from '../../filters/logs.js';
import { resolveBlockNumber } from '../blockParam.js';
import { INVALID_FILTER_PARAMS, RpcError } from '../errors.js';
import {
  addressBytes,
  type BlockParam,
  blockNumberParam,
  type Decoder,
  decoder,
  hashBytes,
} from '../params.js';

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
  return list.map((a) => addressBytes(a, INVALID_FILTER_PARAMS));
}

function parseTopics(value: unknown): (Uint8Array[] | null)[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail();
  return value.map((position) => {
    if (position === null) return null;
    if (typeof position === 'string') return [hashBytes(position, INVALID_FILTER_PARAMS)];
    if (!Array.isArray(position)) fail();
    // A null among the alternatives matches anything, as the other clients read it.
    if (position.some((t) => t === null)) return null;
    return position.map((t) => hashBytes(t, INVALID_FILTER_PARAMS));
  });
}

/** The filter object; `blockHash` together with a range is refused. */
export const logFilter: Decoder<LogFilterParams> = decoder(INVALID_FILTER_PARAMS, (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  const rawHash = obj.blockHash ?? obj.blockhash;
  const rangeParam = (v: unknown) =>
    v === undefined || v === null ? undefined : blockNumberParam(v, INVALID_FILTER_PARAMS);
  const fromBlock = rangeParam(obj.fromBlock);
  const toBlock = rangeParam(obj.toBlock);
  let blockHash: Uint8Array | undefined;
  if (rawHash !== undefined && rawHash !== null) {
    if (fromBlock !== undefined || toBlock !== undefined) return undefined;
    blockHash = hashBytes(rawHash, INVALID_FILTER_PARAMS);
  }
  return {
    fromBlock,
    toBlock,
    blockHash,
    query: { addresses: parseAddresses(obj.address), topics: parseTopics(obj.topics) },
  };
});

const LATEST: RangeParam = Object.freeze({ kind: 'tag', tag: 'latest' });

/**
 * Where a decoded filter looks, its tags resolved against the chain now (`latest` when left out; an
 * unknown `safe`/`finalized` answers `Unknown block`). The log query service checks the range.
 */
export function logScopeOf(chain: ChainStore, f: LogFilterParams): LogScope {
  if (f.blockHash) return { blockHash: f.blockHash };
  return {
    from: resolveBlockNumber(chain, f.fromBlock ?? LATEST),
    to: resolveBlockNumber(chain, f.toBlock ?? LATEST),
  };
}
