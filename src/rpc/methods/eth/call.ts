/**
 * eth_call, and the pieces eth_estimateGas and eth_createAccessList share with it: the call object
 * and state override decoders, the block the call runs on, and how simulation outcomes become
 * Besu's errors.
 */

import type { BlockHeader } from '@ethereumjs/block';
import { CallFailedError } from '../../../execution/gasEstimator.js';
import {
  type CallRequest,
  type CallSimulator,
  InvalidSimulationError,
  type SimulationResult,
  type StateOverrides,
} from '../../../execution/simulator.js';
import { type BlockParam, resolveHeader, stateBlockParam } from '../../blockParam.js';
import {
  BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE,
  BLOCK_NOT_FOUND,
  EXECUTION_HALTED,
  INTERNAL_ERROR,
  INTRINSIC_GAS_EXCEEDS_LIMIT,
  INVALID_BLOCK_PARAMS,
  INVALID_TRANSACTION_TYPE,
  NONCE_TOO_LOW,
  RpcError,
  revertError,
  TOTAL_BLOB_GAS_TOO_HIGH,
  TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE,
} from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { decodeCallObject, decodeOverrides } from '../../params/call.js';
import { blockNumberParam } from '../../params.js';
import type { Services } from '../../services.js';
import { deferred, defineMethod, type ParamSpec, withDefault } from '../define.js';
import { stateHeader } from './state.js';

/** The node's call simulator (built once in node.ts). */
export function simulatorOf(services: Services): CallSimulator {
  return services.callSimulator;
}

// The call object and state override decoders live with the other composite decoders.
export { decodeCallObject, decodeOverrides };

/** The call object parameter (`Invalid call params` when malformed). */
export const callObject: ParamSpec<CallRequest> = {
  decode: (params, index) => decodeCallObject(params[index]),
};

/** The state override parameter; absent: undefined. */
export const stateOverrides: ParamSpec<StateOverrides | undefined> = {
  decode: (params, index) => decodeOverrides(params[index]),
};

/** eth_call's block: required, a number, tag, hash or EIP-1898 object (`Invalid block param`). */
const callBlock: ParamSpec<BlockParam> = {
  decode(params, index) {
    if (params[index] === undefined || params[index] === null) throw new RpcError(INVALID_BLOCK_PARAMS);
    return stateBlockParam(params, index);
  },
};

const PENDING: BlockParam = Object.freeze({ kind: 'tag', tag: 'pending' });

/**
 * eth_estimateGas's and eth_createAccessList's block: a number or tag only (`pending` when absent; a
 * hash or an EIP-1898 object is `Invalid block param`).
 */
export const estimateBlock = withDefault(blockNumberParam, PENDING, INVALID_BLOCK_PARAMS);

/** The header of an estimate's block: a number that names no block, negative ones included, is `Block not found`. */
export function estimateHeader(services: Services, p: BlockParam): BlockHeader {
  const header = resolveHeader(services.chain, p);
  if (!header) throw new RpcError(BLOCK_NOT_FOUND);
  return header;
}

/** A transaction that could not be run, as Besu answers it. */
export function invalidSimulation(err: unknown): never {
  if (err instanceof CallFailedError) throw failureError(err.result);
  if (err instanceof InvalidSimulationError) {
    switch (err.reason) {
      case 'NONCE_TOO_LOW':
        throw RpcError.withDetail(NONCE_TOO_LOW, err.detail);
      case 'UPFRONT_COST_EXCEEDS_BALANCE':
        throw RpcError.withDetail(TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE, err.detail);
      case 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT':
        throw RpcError.withDetail(INTRINSIC_GAS_EXCEEDS_LIMIT, err.detail);
      case 'TOTAL_BLOB_GAS_TOO_HIGH':
        throw RpcError.withDetail(TOTAL_BLOB_GAS_TOO_HIGH, err.detail);
      case 'INVALID_TRANSACTION_FORMAT':
        throw RpcError.withDetail(INVALID_TRANSACTION_TYPE, err.detail);
      case 'BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE':
        throw RpcError.withDetail(BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE, err.detail);
      // Besu's converter has no code of its own for an oversized creation: the generic one, with the reason.
      case 'INITCODE_TOO_LARGE':
        throw RpcError.withDetail(INTERNAL_ERROR, err.detail);
      default:
        throw RpcError.withDetail(INTERNAL_ERROR, err.detail);
    }
  }
  throw err;
}

/** Runs a simulation, turning validation failures into Besu's errors. */
export async function simulateOrThrow(
  services: Services,
  header: BlockHeader,
  call: CallRequest,
  opts: Parameters<CallSimulator['simulate']>[2] = {},
): Promise<SimulationResult> {
  try {
    return await simulatorOf(services).simulate(header, call, opts);
  } catch (err) {
    invalidSimulation(err);
  }
}

/**
 * A failed run as eth_estimateGas and eth_createAccessList report it: the revert error with its data,
 * or Besu's halt error with the reason (`… (Invalid opcode: 0xfe)`).
 */
export function failureError(result: SimulationResult): RpcError {
  if (result.status === 'revert') return revertError(result.output);
  return RpcError.withDetail(EXECUTION_HALTED, result.haltReason);
}

/** eth_call's failures: a revert carries its data; Besu answers any other halt with `Internal error`. */
export function callFailureError(result: SimulationResult): RpcError {
  if (result.status === 'revert') return revertError(result.output);
  return new RpcError(INTERNAL_ERROR);
}

/**
 * eth_call, parameters in Besu's order: the block is required and is decoded and looked up first, so
 * a missing or malformed one is `Invalid block param` and a block beyond the head or a hash that names
 * no block answers null, whatever the call object holds; then the call object, then the overrides.
 */
export const ethCall = defineMethod({
  name: 'eth_call',
  group: 'ETH',
  params: [deferred(callObject), callBlock, deferred(stateOverrides)],
  order: [1, 0, 2],
  async handler([callParam, block, overridesParam], { services }) {
    const header = stateHeader(services, block);
    if (!header) return null;
    const call = callParam();
    const result = await simulateOrThrow(services, header, call, { overrides: overridesParam() });
    if (result.status !== 'success') throw callFailureError(result);
    return bytes(result.output);
  },
});
