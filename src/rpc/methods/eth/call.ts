/**
 * eth_call, and the pieces eth_estimateGas and eth_createAccessList share with it: the call object
 * and state override decoders, the block the call runs on, and how simulation outcomes become
 * Besu's errors.
 */

import type { BlockHeader } from '@ethereumjs/block';
import { createAddressFromString } from '@ethereumjs/util';
import { SIMULATED_AUTHORIZATION_SIGNATURE } from '../../../execution/authorizations.js';
import { CallFailedError } from '../../../execution/gasEstimator.js';
import {
  type AccountOverride,
  type CallRequest,
  CallSimulator,
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
  INVALID_CALL_PARAMS,
  INVALID_TRANSACTION_TYPE,
  NONCE_TOO_LOW,
  RpcError,
  type RpcErrorSpec,
  revertError,
  TOTAL_BLOB_GAS_TOO_HIGH,
  TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE,
} from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { address, blockNumberParam, bool, data, hash32, quantity, uint64 } from '../../params.js';
import type { Services } from '../../services.js';
import { deferred, defineMethod, type ParamSpec, withDefault } from '../define.js';
import { stateHeader } from './state.js';

const simulators = new WeakMap<Services, CallSimulator>();

/** One simulator per node (it holds no per-call state). */
export function simulatorOf(services: Services): CallSimulator {
  let s = simulators.get(services);
  if (!s) {
    const clique = services.clique;
    s = new CallSimulator(
      services.chain,
      services.world,
      services.config.rpcGasCap,
      clique ? (header) => createAddressFromString(clique.proposerOf(header)) : undefined,
    );
    simulators.set(services, s);
  }
  return s;
}

function hexBytes(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Besu's call parameter: any malformed member is `Invalid call params`; unknown members are ignored. */
export function decodeCallObject(value: unknown): CallRequest {
  if (!isObject(value)) throw new RpcError(INVALID_CALL_PARAMS);
  const e = INVALID_CALL_PARAMS;
  const opt = <T>(key: string, decode: (v: unknown, err: typeof e) => T): T | undefined => {
    const v = value[key];
    return v === undefined || v === null ? undefined : decode(v, e);
  };
  const input = opt('input', data);
  const dataField = opt('data', data);
  if (input !== undefined && dataField !== undefined && Buffer.compare(input, dataField) !== 0) {
    throw new RpcError(INVALID_CALL_PARAMS);
  }
  const call: CallRequest = {
    from: opt('from', (v, err) => hexBytes(address(v, err))),
    to: opt('to', (v, err) => hexBytes(address(v, err))),
    gas: opt('gas', uint64),
    gasPrice: opt('gasPrice', quantity),
    maxFeePerGas: opt('maxFeePerGas', quantity),
    maxPriorityFeePerGas: opt('maxPriorityFeePerGas', quantity),
    value: opt('value', quantity),
    data: input ?? dataField,
    nonce: opt('nonce', uint64),
    maxFeePerBlobGas: opt('maxFeePerBlobGas', quantity),
    strict: opt('strict', bool),
  };
  const al = value.accessList;
  if (al !== undefined && al !== null) {
    if (!Array.isArray(al)) throw new RpcError(e);
    call.accessList = al.map((item) => {
      if (!isObject(item)) throw new RpcError(e);
      const keys = item.storageKeys ?? [];
      if (!Array.isArray(keys)) throw new RpcError(e);
      return [hexBytes(address(item.address, e)), keys.map((k) => hexBytes(hash32(k, e)))];
    });
  }
  const hashes = value.blobVersionedHashes;
  if (hashes !== undefined && hashes !== null) {
    if (!Array.isArray(hashes)) throw new RpcError(e);
    call.blobVersionedHashes = hashes.map((h) => hexBytes(hash32(h, e)));
  }
  const auths = value.authorizationList;
  if (auths !== undefined && auths !== null) {
    if (!Array.isArray(auths)) throw new RpcError(e);
    call.authorizationList = auths.map((a) => {
      if (!isObject(a)) throw new RpcError(e);
      const given = (k: string) => a[k] !== undefined && a[k] !== null;
      const signed = given('yParity') || given('v') || given('r') || given('s');
      const item = {
        chainId: quantity(a.chainId, e),
        address: hexBytes(address(a.address, e)),
        nonce: quantity(a.nonce, e),
      };
      if (given('authority')) {
        // A simulation may name the signer instead of signing; not both (Besu refuses that too).
        if (signed) throw new RpcError(e);
        return {
          ...item,
          ...SIMULATED_AUTHORIZATION_SIGNATURE,
          authority: hexBytes(address(a.authority, e)),
        };
      }
      return {
        ...item,
        yParity: quantity(a.yParity ?? a.v, e),
        r: quantity(a.r, e),
        s: quantity(a.s, e),
      };
    });
  }
  return call;
}

function slotMap(v: unknown, e: RpcErrorSpec): Array<[Uint8Array, Uint8Array]> {
  if (!isObject(v)) throw new RpcError(e);
  return Object.entries(v).map(([k, val]) => [hexBytes(hash32(k, e)), hexBytes(hash32(val, e))]);
}

/**
 * A state override set (eth_call's third parameter, a simulated block's `stateOverrides`);
 * `undefined` when absent. Malformed: `e` (`Invalid call params` for the call methods, as Besu). An
 * account may replace its storage (`state`) or change slots (`stateDiff`), not both: Besu refuses
 * such an override when it decodes it.
 */
export function decodeOverrides(
  value: unknown,
  e: RpcErrorSpec = INVALID_CALL_PARAMS,
): StateOverrides | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new RpcError(e);
  const out: StateOverrides = new Map();
  for (const [addr, raw] of Object.entries(value)) {
    if (!isObject(raw)) throw new RpcError(e);
    const o: AccountOverride = {};
    if (raw.balance !== undefined && raw.balance !== null) o.balance = quantity(raw.balance, e);
    if (raw.nonce !== undefined && raw.nonce !== null) o.nonce = uint64(raw.nonce, e);
    if (raw.code !== undefined && raw.code !== null) o.code = data(raw.code, e);
    if (raw.state !== undefined && raw.state !== null) o.state = slotMap(raw.state, e);
    if (raw.stateDiff !== undefined && raw.stateDiff !== null) o.stateDiff = slotMap(raw.stateDiff, e);
    if (o.state !== undefined && o.stateDiff !== undefined) throw new RpcError(e);
    if (raw.movePrecompileToAddress !== undefined && raw.movePrecompileToAddress !== null) {
      o.movePrecompileToAddress = hexBytes(address(raw.movePrecompileToAddress, e));
    }
    out.set(address(addr, e).toLowerCase(), o);
  }
  return out;
}

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
