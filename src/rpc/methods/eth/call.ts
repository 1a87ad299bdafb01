/**
 * eth_call, and the pieces eth_estimateGas and eth_createAccessList share with it: the call object
 * and state override decoders, the block the call runs on, and how simulation outcomes become
 * Besu's errors.
 */

import type { BlockHeader } from '@ethereumjs/block';
import {
  type CallRequest,
  type CallSimulator,
  InvalidSimulationError,
  type SimulationResult,
  type StateOverrides,
} from '../../../execution/simulator.js';
import { type BlockParam, resolveHeader, resolveStateBlock, stateBlockParam } from '../../blockParam.js';
import {
  BLOCK_NOT_FOUND,
  EXECUTION_HALTED,
  INTERNAL_ERROR,
  INTRINSIC_GAS_EXCEEDS_LIMIT,
  INVALID_BLOCK_PARAMS,
  NONCE_TOO_LOW,
  RpcError,
  revertError,
  TOTAL_BLOB_GAS_TOO_HIGH,
  TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE,
} from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { decodeCallObject, decodeOverrides } from '../../params/call.js';
import { blockNumberParam, optionalParam } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

/** The node's call simulator (built once in node.ts). */
export function simulatorOf(services: Services): CallSimulator {
  return services.callSimulator;
}

// The call object and state override decoders live with the other composite decoders.
export { decodeCallObject, decodeOverrides };

/** What a simulation runs: the block it runs on, the call, and the state overrides. */
export interface CallInput {
  header: BlockHeader;
  call: CallRequest;
  overrides: StateOverrides | undefined;
}

/**
 * eth_call's parameters in Besu's order: the block (number, tag, hash or EIP-1898 object) is decoded
 * and resolved first, so a block beyond the head answers null whatever the call object holds, and an
 * unknown hash is `Block not found`; then the call object, then the overrides. Undefined: no such
 * block (null result).
 */
export function callInputAt(services: Services, params: readonly unknown[]): CallInput | undefined {
  const header = resolveStateBlock(services.chain, stateBlockParam(params, 1));
  if (!header) return undefined;
  const call = decodeCallObject(params[0]);
  return { header, call, overrides: decodeOverrides(params[2]) };
}

const PENDING: BlockParam = Object.freeze({ kind: 'tag', tag: 'pending' });

/**
 * eth_estimateGas's and eth_createAccessList's parameters in Besu's order: a block number or tag
 * only (`pending` when absent; a hash or an EIP-1898 object is `Invalid block param`), then the call
 * object, then the block lookup (a number that names no block, negative ones included, is
 * `Block not found`), then the overrides.
 */
export function estimateInputAt(services: Services, params: readonly unknown[]): CallInput {
  const p = optionalParam(params, 1, blockNumberParam, INVALID_BLOCK_PARAMS) ?? PENDING;
  const call = decodeCallObject(params[0]);
  const header = resolveHeader(services.chain, p);
  if (!header) throw new RpcError(BLOCK_NOT_FOUND);
  return { header, call, overrides: decodeOverrides(params[2]) };
}

/** A transaction that could not be run, as Besu answers it. */
export function invalidSimulation(err: unknown): never {
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

export const ethCall: RpcMethod = {
  name: 'eth_call',
  group: 'ETH',
  async handler(params, { services }) {
    const input = callInputAt(services, params);
    if (!input) return null;
    const result = await simulateOrThrow(services, input.header, input.call, { overrides: input.overrides });
    if (result.status !== 'success') throw callFailureError(result);
    return bytes(result.output);
  },
};
