/**
 * The TRACE group's methods over stored blocks: trace_replayBlockTransactions, trace_block,
 * trace_transaction and trace_get. Each replays the block over its parent's state (nothing written);
 * the genesis block has nothing to trace (an empty list), a block beyond the head answers null, an
 * unknown transaction an empty list.
 */
import type { Block } from '@ethereumjs/block';
import type { FlatTraceJson } from '../../../execution/tracers/parity/flat.js';
import { ParityTracer, type TraceTypes } from '../../../execution/tracers/parity/service.js';
import { guardSink } from '../../../execution/tracers/sink.js';
import { resolveBlockNumber } from '../../blockParam.js';
import {
  INVALID_BLOCK_PARAMS,
  INVALID_PARAM_COUNT,
  INVALID_TRACE_NUMBERS_PARAMS,
  INVALID_TRACE_TYPE_PARAMS,
  INVALID_TRANSACTION_HASH_PARAMS,
} from '../../errors.js';
import { type BlockParam, blockNumberParam, decoder, hashBytes } from '../../params.js';
import type { Services } from '../../services.js';
import { StreamingResult, type StreamWrite } from '../../streaming.js';
import { deferred, defineMethod, required } from '../define.js';

export function tracerOf(services: Services): ParityTracer {
  return new ParityTracer(services.importer.processor, services.importer.rules);
}

/** `["trace", "vmTrace", "stateDiff"]`, any subset, case-insensitive; anything else is refused. */
export const traceTypes = decoder<TraceTypes>(INVALID_TRACE_TYPE_PARAMS, (value) => {
  if (!Array.isArray(value)) return undefined;
  const out: TraceTypes = { trace: false, vmTrace: false, stateDiff: false };
  for (const v of value) {
    if (typeof v !== 'string') return undefined;
    const t = v.toLowerCase();
    if (t === 'trace') out.trace = true;
    else if (t === 'vmtrace') out.vmTrace = true;
    else if (t === 'statediff') out.stateDiff = true;
    else return undefined;
  }
  return out;
});

/**
 * A JSON array written element by element: `fill` gets an `add` that writes one value (awaiting it is
 * the back-pressure; it throws once the reader has gone, which stops the tracing).
 */
export function streamArray(
  fill: (add: (value: unknown) => Promise<void> | undefined) => Promise<void>,
): StreamingResult {
  return new StreamingResult(async (write: StreamWrite) => {
    const out = guardSink(write);
    let first = true;
    await out('[');
    await fill((value) => {
      const text = JSON.stringify(value);
      const r = out(first ? text : `,${text}`);
      first = false;
      return r;
    });
    await out(']');
  });
}

/** The block a number or tag names: undefined beyond the head; the genesis block is `genesis`. */
function blockAt(
  services: Services,
  p: Exclude<BlockParam, { kind: 'hash' }>,
): Block | 'genesis' | undefined {
  const n = resolveBlockNumber(services.chain, p);
  if (n === 0n) return 'genesis';
  if (n < 0n) return undefined;
  return services.chain.getBlockByNumber(n);
}

export const traceReplayBlockTransactions = defineMethod({
  name: 'trace_replayBlockTransactions',
  group: 'TRACE',
  params: [required(blockNumberParam, INVALID_BLOCK_PARAMS), deferred(required(traceTypes))],
  async handler([p, types], { services }) {
    const block = blockAt(services, p);
    const wanted = types();
    if (block === 'genesis') return [];
    if (!block) return null;
    return streamArray((add) => tracerOf(services).replayTransactions(block, wanted, add));
  },
});

export const traceBlock = defineMethod({
  name: 'trace_block',
  group: 'TRACE',
  params: [required(blockNumberParam, INVALID_BLOCK_PARAMS)],
  async handler([p], { services }) {
    const block = blockAt(services, p);
    if (block === 'genesis') return [];
    if (!block) return null;
    return streamArray((add) => tracerOf(services).blockTraces(block, add, { rewards: true }));
  },
});

/** The flat traces of a stored transaction; empty when the node does not know it. */
async function transactionTraces(services: Services, hash: Uint8Array): Promise<FlatTraceJson[]> {
  const location = services.chain.getTxLocation(hash);
  if (!location) return [];
  const block = services.chain.getBlock(location.blockHash);
  if (!block || block.transactions.length === 0) return [];
  const out: FlatTraceJson[] = [];
  await tracerOf(services).blockTraces(block, (t) => void out.push(t), {
    rewards: false,
    only: location.index,
  });
  return out;
}

export const traceTransaction = defineMethod({
  name: 'trace_transaction',
  group: 'TRACE',
  params: [required(hashBytes, INVALID_TRANSACTION_HASH_PARAMS)],
  handler: ([hash], { services }) => transactionTraces(services, hash),
});

/** trace_get's positions: hex strings (`"0x1"`), read after the `0x` as base 16. */
const traceNumbers = decoder<number[]>(INVALID_TRACE_NUMBERS_PARAMS, (value) => {
  if (!Array.isArray(value)) return undefined;
  const out: number[] = [];
  for (const v of value) {
    if (typeof v !== 'string') return undefined;
    const n = Number.parseInt(v.slice(2), 16);
    if (!/^[0-9a-fA-F]+$/.test(v.slice(2)) || !Number.isSafeInteger(n) || n > 0x7fffffff) return undefined;
    out.push(n);
  }
  return out;
});

export const traceGet = defineMethod({
  name: 'trace_get',
  group: 'TRACE',
  arity: 2,
  arityError: INVALID_PARAM_COUNT,
  params: [required(hashBytes, INVALID_TRANSACTION_HASH_PARAMS), required(traceNumbers)],
  async handler([hash, address], { services }) {
    const traces = await transactionTraces(services, hash);
    const found = traces.find(
      (t) => t.traceAddress.length === address.length && t.traceAddress.every((v, i) => v === address[i]),
    );
    return found ?? null;
  },
});
