/**
 * The TRACE group's simulations: trace_call (a call object on a block's state), trace_callMany (calls
 * one after another, each seeing the state the previous left) and trace_rawTransaction (a signed
 * transaction on the head's state). Each answers `{output, stateDiff, trace, vmTrace}` with the parts
 * asked for; a call that cannot run as a transaction is Besu's internal error.
 */
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import type { CallRequest } from '../../../execution/simulator.js';
import { type TraceTypes, traceCalls } from '../../../execution/tracers/parity/service.js';
import { type BlockParam, resolveHeader } from '../../blockParam.js';
import {
  BLOCK_NOT_FOUND,
  INVALID_BLOCK_PARAMS,
  INVALID_PARAM_COUNT,
  INVALID_TRACE_CALL_MANY_PARAMS,
  INVALID_TRANSACTION_PARAMS,
  RpcError,
} from '../../errors.js';
import { decodeCallObject } from '../../params/call.js';
import { blockNumberParam, data } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, type ParamSpec, required, withDefault } from '../define.js';
import { traceTypes } from './blocks.js';

const LATEST: BlockParam = Object.freeze({ kind: 'tag', tag: 'latest' });
const traceBlockParam = withDefault(blockNumberParam, LATEST, INVALID_BLOCK_PARAMS);

const callObject: ParamSpec<CallRequest> = { decode: (params, index) => decodeCallObject(params[index]) };

function headerAt(services: Services, p: BlockParam) {
  const header = resolveHeader(services.chain, p);
  if (!header) throw new RpcError(BLOCK_NOT_FOUND);
  return header;
}

export const traceCall = defineMethod({
  name: 'trace_call',
  group: 'TRACE',
  params: [callObject, required(traceTypes), traceBlockParam],
  order: [2, 0, 1],
  async handler([call, types, block], { services }) {
    const header = headerAt(services, block);
    const [result] = await traceCalls(services.callSimulator, header, [{ call, types }]);
    return result;
  },
});

/** `[[call, types], …]`: anything malformed (a call object, a trace type) is one error. */
const callManyParam: ParamSpec<Array<{ call: CallRequest; types: TraceTypes }>> = {
  decode(params, index) {
    const value = params[index];
    if (!Array.isArray(value)) throw new RpcError(INVALID_TRACE_CALL_MANY_PARAMS);
    try {
      return value.map((entry) => {
        if (!Array.isArray(entry)) throw new RpcError(INVALID_TRACE_CALL_MANY_PARAMS);
        return { call: decodeCallObject(entry[0]), types: traceTypes(entry[1]) };
      });
    } catch {
      throw new RpcError(INVALID_TRACE_CALL_MANY_PARAMS);
    }
  },
};

export const traceCallMany = defineMethod({
  name: 'trace_callMany',
  group: 'TRACE',
  params: [callManyParam, traceBlockParam],
  order: [1, 0],
  async handler([calls, block], { services }) {
    const header = headerAt(services, block);
    return traceCalls(services.callSimulator, header, calls);
  },
});

/** A signed transaction as the call it makes: its sender, fields and nonce. */
function callOf(tx: TypedTransaction): CallRequest {
  const t = tx as TypedTransaction & {
    gasPrice?: bigint;
    maxFeePerGas?: bigint;
    maxPriorityFeePerGas?: bigint;
    accessList?: Array<[Uint8Array, Uint8Array[]]>;
  };
  const call: CallRequest = {
    from: tx.getSenderAddress().bytes,
    to: tx.to?.bytes,
    gas: tx.gasLimit,
    value: tx.value,
    data: tx.data,
    nonce: tx.nonce,
  };
  if (t.maxFeePerGas !== undefined) {
    call.maxFeePerGas = t.maxFeePerGas;
    call.maxPriorityFeePerGas = t.maxPriorityFeePerGas;
  } else if (t.gasPrice !== undefined) {
    call.gasPrice = t.gasPrice;
  }
  if (t.accessList && t.accessList.length > 0) call.accessList = t.accessList;
  return call;
}

const rawTransaction = required(data, INVALID_TRANSACTION_PARAMS);

export const traceRawTransaction = defineMethod({
  name: 'trace_rawTransaction',
  group: 'TRACE',
  arity: 2,
  arityError: INVALID_PARAM_COUNT,
  params: [
    {
      decode: (params, index) => {
        if (typeof params[index] !== 'string') throw new RpcError(INVALID_TRANSACTION_PARAMS);
        return params[index] as string;
      },
    } satisfies ParamSpec<string>,
    required(traceTypes),
  ],
  async handler([raw, types], { services }) {
    let tx: TypedTransaction;
    try {
      const bytes = rawTransaction.decode([raw], 0);
      tx = decodeTransaction(services, bytes);
    } catch {
      throw new RpcError(INVALID_TRANSACTION_PARAMS);
    }
    const header = services.chain.headHeader();
    const [result] = await traceCalls(services.callSimulator, header, [{ call: callOf(tx), types }]);
    return result;
  },
});

/** The signed transaction, its sender recovered (a bad signature is a malformed parameter). */
function decodeTransaction(services: Services, raw: Uint8Array): TypedTransaction {
  const common = services.chain.headHeader().common;
  const tx = createTxFromRLP(raw, { common });
  tx.getSenderAddress();
  return tx;
}
