/**
 * Struct-log and geth-tracer traces: debug_traceTransaction, debug_traceBlock (block RLP),
 * debug_traceBlockByHash, debug_traceBlockByNumber and debug_traceCall. The answer streams
 * (`StreamingResult`): the trace service writes it as the EVM runs.
 *
 * Where Besu and the cross-client suite disagree on a miss, the suite's answer is given: an unknown
 * transaction or block hash is `-32000` (Besu 25.x answered null), and the genesis block is
 * `genesis is not traceable`. A number beyond the head answers null, as in Besu.
 */
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import { hexToBytes } from '@ethereumjs/util';
import type { TraceOptions } from '../../../execution/tracers/options.js';
import { resolveHeader } from '../../blockParam.js';
import {
  BLOCK_NOT_FOUND,
  GENESIS_NOT_TRACEABLE,
  INVALID_BLOCK_HASH_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_TRANSACTION_HASH_PARAMS,
  INVALID_TRANSACTION_TRACE_PARAMS,
  PARENT_BLOCK_NOT_FOUND,
  RpcError,
  TRACE_TRANSACTION_NOT_FOUND,
} from '../../errors.js';
import { decodeOverrides } from '../../params/call.js';
import { decodeTraceOptions } from '../../params/traceOptions.js';
import { blockParam, decoder, hashBytes } from '../../params.js';
import type { Services } from '../../services.js';
import { StreamingResult } from '../../streaming.js';
import { deferred, defineMethod, type ParamSpec, raw, required } from '../define.js';
import { callObject } from '../eth/call.js';
import { stateHeader } from '../eth/state.js';
import type { RpcMethod } from '../types.js';
import { strictBlockParam } from './raw.js';

/** The options object at `index`. */
const traceOptions: ParamSpec<TraceOptions> = {
  decode: (params, index) => decodeTraceOptions(params[index]),
};

const blockRlp = decoder(INVALID_BLOCK_PARAMS, (value) => (typeof value === 'string' ? value : undefined));

function traceable(block: Block | undefined): Block {
  if (!block) throw new RpcError(BLOCK_NOT_FOUND);
  if (block.header.number === 0n) throw new RpcError(GENESIS_NOT_TRACEABLE);
  return block;
}

function streamBlock(services: Services, block: Block, options: TraceOptions): StreamingResult {
  return new StreamingResult((write) => services.traces.traceBlock(block, options, write));
}

export const debugTraceTransaction = defineMethod({
  name: 'debug_traceTransaction',
  group: 'DEBUG',
  params: [required(hashBytes, INVALID_TRANSACTION_HASH_PARAMS), deferred(traceOptions)],
  handler([hash, optionsParam], { services }) {
    const location = services.chain.getTxLocation(hash);
    const block = location ? services.chain.getBlock(location.blockHash) : undefined;
    if (!location || !block) throw new RpcError(TRACE_TRANSACTION_NOT_FOUND);
    const options = optionsParam();
    return new StreamingResult((write) =>
      services.traces.traceTransaction(block, location.index, options, write),
    );
  },
});

export const debugTraceBlock = defineMethod({
  name: 'debug_traceBlock',
  group: 'DEBUG',
  params: [required(blockRlp), traceOptions],
  handler([rlp, options], { services }) {
    let block: Block;
    try {
      block = createBlockFromRLP(hexToBytes(rlp as `0x${string}`), {
        common: services.common,
        setHardfork: true,
      });
    } catch {
      throw new RpcError(INVALID_BLOCK_PARAMS);
    }
    if (block.header.number === 0n) throw new RpcError(GENESIS_NOT_TRACEABLE);
    if (!services.chain.getHeader(block.header.parentHash)) throw new RpcError(PARENT_BLOCK_NOT_FOUND);
    return streamBlock(services, block, options);
  },
});

export const debugTraceBlockByHash = defineMethod({
  name: 'debug_traceBlockByHash',
  group: 'DEBUG',
  params: [required(hashBytes, INVALID_BLOCK_HASH_PARAMS), traceOptions],
  handler([hash, options], { services }) {
    return streamBlock(services, traceable(services.chain.getBlock(hash)), options);
  },
});

export const debugTraceBlockByNumber = defineMethod({
  name: 'debug_traceBlockByNumber',
  group: 'DEBUG',
  params: [required(strictBlockParam), deferred(traceOptions)],
  handler([p, optionsParam], { services }) {
    const header = resolveHeader(services.chain, p);
    if (!header) return null;
    const options = optionsParam();
    return streamBlock(services, traceable(services.chain.getBlock(header.hash())), options);
  },
});

export const debugTraceCall = defineMethod({
  name: 'debug_traceCall',
  group: 'DEBUG',
  params: [deferred(callObject), raw, deferred(raw)],
  order: [1, 0, 2],
  async handler([callParam, blockValue, optionsValue], { services }) {
    const block =
      blockValue === undefined || blockValue === null
        ? ({ kind: 'tag', tag: 'latest' } as const)
        : blockParam(blockValue, INVALID_BLOCK_PARAMS);
    const header = stateHeader(services, block);
    if (!header) return null;
    const call = callParam();
    const rawOptions = optionsValue();
    const options = decodeTraceOptions(rawOptions);
    let overrides: ReturnType<typeof decodeOverrides>;
    try {
      overrides =
        rawOptions !== null && typeof rawOptions === 'object'
          ? decodeOverrides((rawOptions as Record<string, unknown>).stateOverrides)
          : undefined;
    } catch {
      throw new RpcError(INVALID_TRANSACTION_TRACE_PARAMS);
    }
    // The call's validity is known before anything is written; the struct-log outcome run shows it.
    return new StreamingResult((write) => services.traces.traceCall(header, call, overrides, options, write));
  },
});

export const debugTraceMethods: RpcMethod[] = [
  debugTraceTransaction,
  debugTraceBlock,
  debugTraceBlockByHash,
  debugTraceBlockByNumber,
  debugTraceCall,
];
