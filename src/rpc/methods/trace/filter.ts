/**
 * trace_filter: the flat traces (reward traces included) of the blocks `fromBlock`..`toBlock`
 * (default latest), kept when their `from` is one of `fromAddress` and their `to` one of `toAddress`
 * (each test skipped when its list is empty), then `after` traces skipped and at most `count` kept.
 * The range may span at most --rpc-max-trace-filter-range blocks (0: no limit); blocks are traced
 * one after another and tracing stops once `count` traces are kept.
 */
import { TraceAbort } from '../../../execution/tracer.js';
import type { FlatTraceJson } from '../../../execution/tracers/parity/flat.js';
import {
  EXCEEDS_RPC_MAX_BLOCK_RANGE,
  INTERNAL_ERROR,
  INVALID_FILTER_PARAMS,
  INVALID_PARAMS,
  RpcError,
} from '../../errors.js';
import { address, type BlockParam, blockNumberParam, decoder } from '../../params.js';
import { defineMethod, required } from '../define.js';
import { streamArray, tracerOf } from './blocks.js';

interface TraceFilter {
  fromBlock: Exclude<BlockParam, { kind: 'hash' }>;
  toBlock: Exclude<BlockParam, { kind: 'hash' }>;
  fromAddress: Set<string>;
  toAddress: Set<string>;
  after?: number;
  count?: number;
}

const LATEST = { kind: 'tag', tag: 'latest' } as const;

/** `count` traces are kept: the replay stops at the next transaction. */
class FilterFull extends TraceAbort {}

function addresses(value: unknown): Set<string> | undefined {
  if (value === undefined || value === null) return new Set();
  const list = Array.isArray(value) ? value : [value];
  const out = new Set<string>();
  for (const v of list) {
    out.add(address(v));
  }
  return out;
}

function integer(value: unknown): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) return null;
  return n;
}

const traceFilterParam = decoder<TraceFilter>(INVALID_FILTER_PARAMS, (value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  try {
    const fromBlock =
      o.fromBlock === undefined || o.fromBlock === null ? LATEST : blockNumberParam(o.fromBlock);
    const toBlock = o.toBlock === undefined || o.toBlock === null ? LATEST : blockNumberParam(o.toBlock);
    const fromAddress = addresses(o.fromAddress);
    const toAddress = addresses(o.toAddress);
    const after = integer(o.after);
    const count = integer(o.count);
    if (!fromAddress || !toAddress || after === null || count === null) return undefined;
    return { fromBlock, toBlock, fromAddress, toAddress, after, count };
  } catch {
    return undefined;
  }
});

export const traceFilter = defineMethod({
  name: 'trace_filter',
  group: 'TRACE',
  params: [required(traceFilterParam)],
  async handler([filter], { services }) {
    const chain = services.chain;
    const head = chain.head().number;
    const number = (p: TraceFilter['fromBlock']): bigint => {
      if (p.kind === 'number') return p.number;
      if (p.tag === 'latest') return head;
      if (p.tag === 'earliest') return 0n;
      throw new RpcError(INTERNAL_ERROR);
    };
    const from = number(filter.fromBlock);
    const to = number(filter.toBlock);
    if (from > to || to > head) throw new RpcError(INVALID_PARAMS);
    const maxRange = BigInt(services.config.rpcMaxTraceFilterRange);
    if (maxRange > 0n && to - from > maxRange) throw new RpcError(EXCEEDS_RPC_MAX_BLOCK_RANGE);

    const after = filter.after;
    const count = filter.count;
    // The genesis block (and blocks the node lacks) at the start of the range are skipped.
    let start = from;
    let first = chain.getBlockByNumber(start);
    while ((!first || first.header.number === 0n) && start < to) {
      start++;
      first = chain.getBlockByNumber(start);
    }
    const tracer = tracerOf(services);
    return streamArray(async (add) => {
      let offset = 0;
      let kept = 0;
      const full = (): boolean => count !== undefined && count <= kept;
      const each = (t: FlatTraceJson): Promise<void> | undefined => {
        if (filter.fromAddress.size > 0 && !(t.action.from && filter.fromAddress.has(t.action.from))) return;
        if (filter.toAddress.size > 0 && !(t.action.to && filter.toAddress.has(t.action.to))) return;
        if (full()) throw new FilterFull();
        const keep = after === undefined || offset >= after;
        offset++;
        if (!keep) return;
        kept++;
        return add(t);
      };
      // One block at a time: only the block being traced is held.
      try {
        for (let n = start; n <= to && !full(); n++) {
          const block = n === start ? first : chain.getBlockByNumber(n);
          if (block) await tracer.blockTraces(block, each, { rewards: true });
        }
      } catch (err) {
        if (!(err instanceof FilterFull)) throw err;
      }
    });
  },
});
