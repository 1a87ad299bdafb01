/**
 * eth_simulateV1: decodes the simulation payload (blocks of calls with block and state overrides,
 * `traceTransfers`, `validation`, `returnFullTransactions`), runs it on the block parameter's state and
 * writes each simulated block as a block object with a `calls` member.
 */

import {
  type BlockOverrides,
  type SimBlockRequest,
  type SimCallResult,
  type SimulatedBlock,
  SimulateError,
} from '../../../execution/blockSimulator.js';
import { resolveStateBlock } from '../../blockParam.js';
import {
  decodeRevertReason,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  REVERT_ERROR,
  RpcError,
  type RpcErrorSpec,
  SIM_BASE_FEE_TOO_LOW,
  SIM_BLOCK_GAS_LIMIT,
  SIM_BLOCK_NUMBER_ORDER,
  SIM_BLOCK_TIMESTAMP_ORDER,
  SIM_CLIENT_LIMIT,
  SIM_HEADER_NOT_FOUND,
  SIM_INIT_CODE_TOO_LARGE,
  SIM_INSUFFICIENT_FUNDS,
  SIM_INTRINSIC_GAS,
  SIM_INVALID_OVERRIDE,
  SIM_NONCE_TOO_HIGH,
  SIM_NONCE_TOO_LOW,
  SIM_VM_ERROR,
  withMessage,
} from '../../errors.js';
import { formatUnstoredBlock } from '../../format/block.js';
import { bytes, quantity as hexQuantity } from '../../format/hex.js';
import { address, bool, hash32, quantity, uint64 } from '../../params.js';
import { defineMethod, type ParamSpec } from '../define.js';
import { decodeCallObject, decodeOverrides } from './call.js';
import { stateBlock } from './state.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hexBytes(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
}

function decodeBlockOverrides(value: unknown): BlockOverrides | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new RpcError(INVALID_PARAMS);
  const e = INVALID_PARAMS;
  const opt = <T>(key: string, decode: (v: unknown) => T): T | undefined => {
    const v = value[key];
    return v === undefined || v === null ? undefined : decode(v);
  };
  const out: BlockOverrides = {
    number: opt('number', (v) => quantity(v, e)),
    time: opt('time', (v) => uint64(v, e)),
    gasLimit: opt('gasLimit', (v) => uint64(v, e)),
    feeRecipient: opt('feeRecipient', (v) => hexBytes(address(v, e))),
    prevRandao: opt('prevRandao', (v) => hexBytes(hash32(v, e))),
    baseFeePerGas: opt('baseFeePerGas', (v) => quantity(v, e)),
    blobBaseFee: opt('blobBaseFee', (v) => quantity(v, e)),
    beaconRoot: opt('beaconRoot', (v) => hexBytes(hash32(v, e))),
  };
  const ws = value.withdrawals;
  if (ws !== undefined && ws !== null) {
    if (!Array.isArray(ws)) throw new RpcError(e);
    out.withdrawals = ws.map((w) => {
      if (!isObject(w)) throw new RpcError(e);
      return {
        index: uint64(w.index, e),
        validatorIndex: uint64(w.validatorIndex, e),
        address: hexBytes(address(w.address, e)),
        amount: uint64(w.amount, e),
      };
    });
  }
  return out;
}

function decodeBlocks(value: unknown): SimBlockRequest[] {
  if (!Array.isArray(value)) throw new RpcError(INVALID_PARAMS);
  return value.map((b) => {
    if (!isObject(b)) throw new RpcError(INVALID_PARAMS);
    const calls = b.calls ?? [];
    if (!Array.isArray(calls)) throw new RpcError(INVALID_PARAMS);
    return {
      blockOverrides: decodeBlockOverrides(b.blockOverrides),
      stateOverrides: decodeOverrides(b.stateOverrides, INVALID_PARAMS),
      calls: calls.map((c) => decodeCallObject(c)),
    };
  });
}

const ERROR_SPECS: Record<SimulateError['kind'], RpcErrorSpec> = {
  NONCE_TOO_LOW: SIM_NONCE_TOO_LOW,
  NONCE_TOO_HIGH: SIM_NONCE_TOO_HIGH,
  BASE_FEE_TOO_LOW: SIM_BASE_FEE_TOO_LOW,
  INTRINSIC_GAS: SIM_INTRINSIC_GAS,
  INSUFFICIENT_FUNDS: SIM_INSUFFICIENT_FUNDS,
  BLOCK_GAS_LIMIT: SIM_BLOCK_GAS_LIMIT,
  BLOCK_NUMBER_ORDER: SIM_BLOCK_NUMBER_ORDER,
  BLOCK_TIMESTAMP_ORDER: SIM_BLOCK_TIMESTAMP_ORDER,
  CLIENT_LIMIT: SIM_CLIENT_LIMIT,
  INVALID_PARAMS: INVALID_PARAMS,
  INTERNAL: INTERNAL_ERROR,
  INVALID_OVERRIDE: SIM_INVALID_OVERRIDE,
  INIT_CODE_TOO_LARGE: SIM_INIT_CODE_TOO_LARGE,
};

/** Errors whose message Besu writes in full (the block sequence checks); the others add a detail. */
const WHOLE_MESSAGE = new Set<SimulateError['kind']>([
  'BLOCK_NUMBER_ORDER',
  'BLOCK_TIMESTAMP_ORDER',
  'CLIENT_LIMIT',
]);

function simulateRpcError(err: SimulateError): RpcError {
  const spec = ERROR_SPECS[err.kind];
  return WHOLE_MESSAGE.has(err.kind)
    ? new RpcError(withMessage(spec, err.message))
    : RpcError.withDetail(spec, err.message);
}

/** The EVM's halt wording, as the execution-apis fixtures show it. */
function haltMessage(reason: string | undefined): string {
  switch (reason) {
    case 'invalid JUMP':
      return 'invalid jump destination';
    case undefined:
      return 'execution failed';
    default:
      return reason;
  }
}

function formatCall(
  call: SimCallResult,
  block: SimulatedBlock,
  index: number,
  firstLogIndex: number,
): Record<string, unknown> {
  const header = block.block.header;
  const blockHash = bytes(header.hash());
  const tx = block.block.transactions[index];
  const txHash = tx ? bytes(tx.hash()) : '0x';
  let error: Record<string, unknown> | undefined;
  if (call.status === 'revert') {
    const data = call.revertData ?? new Uint8Array();
    const reason = decodeRevertReason(bytes(data));
    error = {
      message: reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`,
      code: REVERT_ERROR.code,
      data: bytes(data),
    };
  } else if (call.status === 'halt') {
    error = { message: haltMessage(call.haltReason), code: SIM_VM_ERROR.code };
  }
  // Member order as Besu writes it (its spec files compare the text).
  const out: Record<string, unknown> = error ? { error } : {};
  out.gasUsed = hexQuantity(call.gasUsed);
  out.logs = call.logs.map((l, i) => ({
    logIndex: hexQuantity(firstLogIndex + i),
    removed: false,
    blockNumber: hexQuantity(header.number),
    blockHash,
    blockTimestamp: hexQuantity(header.timestamp),
    transactionHash: txHash,
    transactionIndex: hexQuantity(index),
    address: bytes(l.address),
    data: bytes(l.data),
    topics: l.topics.map(bytes),
  }));
  out.maxUsedGas = hexQuantity(call.maxUsedGas);
  out.returnData = bytes(call.returnData);
  out.status = call.status === 'success' ? '0x1' : '0x0';
  return out;
}

function formatSimulatedBlock(block: SimulatedBlock, fullTxs: boolean): Record<string, unknown> {
  const out = formatUnstoredBlock(block.block, fullTxs, block.senders);
  let logIndex = 0;
  out.calls = block.calls.map((c, i) => {
    const json = formatCall(c, block, i, logIndex);
    logIndex += c.logIndicesUsed;
    return json;
  });
  if (block.trieLog) out.trieLog = bytes(block.trieLog);
  // Besu writes a simulated block's members in alphabetical order (its spec files compare the text).
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(out).sort()) sorted[k] = out[k];
  return sorted;
}

interface SimulatePayload {
  blocks: SimBlockRequest[];
  traceTransfers: boolean;
  validation: boolean;
  fullTxs: boolean;
  returnTrieLog: boolean;
}

/** The simulation payload (first parameter); anything malformed in it is `Invalid params`. */
const simulatePayload: ParamSpec<SimulatePayload> = {
  decode(params, index) {
    const payload = params[index];
    if (!isObject(payload)) throw new RpcError(INVALID_PARAMS);
    const blocks = decodeBlocks(payload.blockStateCalls);
    const flag = (key: string): boolean => {
      const v = payload[key];
      return v === undefined || v === null ? false : bool(v, INVALID_PARAMS);
    };
    return {
      blocks,
      traceTransfers: flag('traceTransfers'),
      validation: flag('validation'),
      fullTxs: flag('returnFullTransactions'),
      returnTrieLog: flag('returnTrieLog'),
    };
  },
};

export const ethSimulateV1 = defineMethod({
  name: 'eth_simulateV1',
  group: 'ETH',
  params: [simulatePayload, stateBlock()],
  async handler([payload, block], { services }) {
    const base = resolveStateBlock(services.chain, block);
    if (!base) throw new RpcError(SIM_HEADER_NOT_FOUND);
    let result: SimulatedBlock[];
    try {
      result = await services.blockSimulator.simulate(base, {
        blocks: payload.blocks,
        traceTransfers: payload.traceTransfers,
        validation: payload.validation,
        returnTrieLog: payload.returnTrieLog,
      });
    } catch (err) {
      if (err instanceof SimulateError) throw simulateRpcError(err);
      throw err;
    }
    return result.map((b) => formatSimulatedBlock(b, payload.fullTxs));
  },
});
