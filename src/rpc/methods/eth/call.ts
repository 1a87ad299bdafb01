/**
 * eth_call, and the pieces eth_estimateGas and eth_createAccessList share with it: the call object
 * and state override decoders, the block the call runs on, and how simulation outcomes become
 * Besu's errors.
 */

import type { BlockHeader } from '@ethereumjs/block';
import type {
  CallRequest,
  CallSimulator,
  SimulationResult,
  StateOverrides,
} from '../../../execution/simulator.js';
import { type BlockParam, resolveHeader, stateBlockParam } from '../../blockParam.js';
import {
  BLOCK_NOT_FOUND,
  INTERNAL_ERROR,
  INVALID_BLOCK_PARAMS,
  RpcError,
  revertError,
} from '../../errors.js';
import { quotedBytes } from '../../format/hex.js';
import { decodeCallObject, decodeOverrides } from '../../params/call.js';
import { blockNumberParam } from '../../params.js';
import { RawJson } from '../../rawJson.js';
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

/** eth_call's failures: a revert carries its data; Besu answers any other halt with `Internal error`. */
export function callFailureError(result: SimulationResult): RpcError {
  if (result.status === 'revert') return revertError(result.output);
  return new RpcError(INTERNAL_ERROR);
}

/**
 * A call's answer: its output, or the error its failure maps to. The output is hex, so its JSON is
 * known without serialising it, and it is ASCII (written without re-encoding).
 */
function callOutput(result: SimulationResult): RawJson {
  if (result.status !== 'success') throw callFailureError(result);
  return new RawJson(quotedBytes(result.output), true);
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
  handler([callParam, block, overridesParam], { services }) {
    const header = stateHeader(services, block);
    if (!header) return null;
    const call = callParam();
    const overrides = overridesParam();
    const simulator = simulatorOf(services);
    // Most calls run synchronously on the interpreter; the rest take the asynchronous path.
    const fast = overrides === undefined ? simulator.simulateFast(header, call) : undefined;
    if (fast !== undefined) return callOutput(fast);
    return simulator.simulate(header, call, { overrides }).then(callOutput);
  },
});
