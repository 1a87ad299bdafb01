/**
 * Engine API parameters: execution payloads, fork choice states, payload attributes, withdrawals and
 * the hex lists beside them, decoded into the service's types. A malformed object is refused with the
 * error Besu gives that parameter (each decoder takes it), before anything else runs.
 */
import { Address, createWithdrawal, type Withdrawal } from '@ethereumjs/util';
import type {
  ExecutionPayloadInput,
  ForkchoiceState,
  PayloadAttributes,
} from '../../consensus/merge/engineService.js';
import { RpcError, type RpcErrorSpec } from '../errors.js';

const HEX = /^0x[0-9a-fA-F]*$/;
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;

/** Hex bytes of any length (`0x` allowed); exactly `length` bytes when given. */
export function hexBytes(value: unknown, length?: number): Uint8Array | undefined {
  if (typeof value !== 'string' || !HEX.test(value) || value.length % 2 !== 0) return undefined;
  const bytes = Uint8Array.from(Buffer.from(value.slice(2), 'hex'));
  if (length !== undefined && bytes.length !== length) return undefined;
  return bytes;
}

/** A hex quantity; Besu's engine parameters also take leading zeros, so any hex digits are read. */
export function hexQuantity(value: unknown): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  if (QUANTITY.test(value)) return BigInt(value);
  if (/^0x[0-9a-fA-F]+$/.test(value)) return BigInt(value);
  return undefined;
}

function fail(error: RpcErrorSpec, detail?: string): never {
  throw new RpcError(error, detail);
}

function object(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function need<T>(value: T | undefined, error: RpcErrorSpec): T {
  if (value === undefined) fail(error);
  return value;
}

function optionalQuantity(
  obj: Record<string, unknown>,
  key: string,
  error: RpcErrorSpec,
): bigint | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  return need(hexQuantity(v), error);
}

/** A list of withdrawals; undefined when absent or null. */
export function withdrawalList(value: unknown, error: RpcErrorSpec): Withdrawal[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) fail(error);
  return value.map((w) => {
    const o = need(object(w), error);
    return createWithdrawal({
      index: need(hexQuantity(o.index), error),
      validatorIndex: need(hexQuantity(o.validatorIndex), error),
      address: need(hexBytes(o.address, 20), error),
      amount: need(hexQuantity(o.amount), error),
    });
  });
}

export function executionPayload(value: unknown, error: RpcErrorSpec): ExecutionPayloadInput {
  const o = need(object(value), error);
  const b32 = (k: string) => need(hexBytes(o[k], 32), error);
  const q = (k: string) => need(hexQuantity(o[k]), error);
  const txs = o.transactions;
  if (!Array.isArray(txs)) fail(error);
  const extra = o.extraData;
  return {
    parentHash: b32('parentHash'),
    feeRecipient: new Address(need(hexBytes(o.feeRecipient, 20), error)),
    stateRoot: b32('stateRoot'),
    receiptsRoot: b32('receiptsRoot'),
    logsBloom: need(hexBytes(o.logsBloom, 256), error),
    prevRandao: b32('prevRandao'),
    blockNumber: q('blockNumber'),
    gasLimit: q('gasLimit'),
    gasUsed: q('gasUsed'),
    timestamp: q('timestamp'),
    extraData: extra === null || extra === undefined ? null : need(hexBytes(extra), error),
    baseFeePerGas: q('baseFeePerGas'),
    blockHash: b32('blockHash'),
    transactions: txs.map((t) => need(hexBytes(t), error)),
    withdrawals: withdrawalList(o.withdrawals, error),
    blobGasUsed: optionalQuantity(o, 'blobGasUsed', error),
    excessBlobGas: optionalQuantity(o, 'excessBlobGas', error),
  };
}

export function forkchoiceState(value: unknown, error: RpcErrorSpec): ForkchoiceState {
  const o = need(object(value), error);
  return {
    headBlockHash: need(hexBytes(o.headBlockHash, 32), error),
    safeBlockHash: need(hexBytes(o.safeBlockHash, 32), error),
    finalizedBlockHash: need(hexBytes(o.finalizedBlockHash, 32), error),
  };
}

/** Payload attributes; undefined when null or absent. */
export function payloadAttributes(value: unknown, error: RpcErrorSpec): PayloadAttributes | undefined {
  if (value === undefined || value === null) return undefined;
  const o = need(object(value), error);
  const root = o.parentBeaconBlockRoot;
  return {
    timestamp: need(hexQuantity(o.timestamp), error),
    prevRandao: need(hexBytes(o.prevRandao, 32), error),
    suggestedFeeRecipient: new Address(need(hexBytes(o.suggestedFeeRecipient, 20), error)),
    withdrawals: withdrawalList(o.withdrawals, error),
    parentBeaconBlockRoot: root === undefined || root === null ? undefined : need(hexBytes(root, 32), error),
  };
}

/** A list of hex strings (versioned hashes, requests); undefined when absent or null. */
export function hexList(value: unknown, error: RpcErrorSpec, length?: number): Uint8Array[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) fail(error);
  return value.map((v) => need(hexBytes(v, length), error));
}
