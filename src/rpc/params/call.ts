/**
 * The composite parameters of the call family (eth_call, eth_estimateGas, eth_createAccessList,
 * eth_simulateV1): the call object and the state override set, one decoder each. Any malformed member
 * is `Invalid call params`, as in Besu; unknown members are ignored.
 */
import { SIMULATED_AUTHORIZATION_SIGNATURE } from '../../execution/authorizations.js';
import type { AccountOverride, CallRequest, StateOverrides } from '../../execution/callTypes.js';
import { INVALID_CALL_PARAMS, RpcError, type RpcErrorSpec } from '../errors.js';
import { address, addressBytes, bool, type Decoder, data, hash32, quantity, uint64 } from '../params.js';

function hexBytes(s: string): Uint8Array {
  // A copy of its own (the typed-array constructor's fast copy), not a view into Buffer's pool.
  return new Uint8Array(Buffer.from(s.slice(2), 'hex'));
}

function absent(v: unknown): v is undefined | null {
  return v === undefined || v === null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Besu's call parameter: any malformed member is `Invalid call params`; unknown members are ignored. */
export function decodeCallObject(value: unknown): CallRequest {
  if (!isObject(value)) throw new RpcError(INVALID_CALL_PARAMS);
  const e = INVALID_CALL_PARAMS;
  // Each member is read once, and decoded only when present (`null` counts as absent).
  const v = value;
  const input = absent(v.input) ? undefined : data(v.input, e);
  const dataField = absent(v.data) ? undefined : data(v.data, e);
  if (input !== undefined && dataField !== undefined && Buffer.compare(input, dataField) !== 0) {
    throw new RpcError(INVALID_CALL_PARAMS);
  }
  const call: CallRequest = {
    from: absent(v.from) ? undefined : addressBytes(v.from, e),
    to: absent(v.to) ? undefined : addressBytes(v.to, e),
    gas: absent(v.gas) ? undefined : uint64(v.gas, e),
    gasPrice: absent(v.gasPrice) ? undefined : quantity(v.gasPrice, e),
    maxFeePerGas: absent(v.maxFeePerGas) ? undefined : quantity(v.maxFeePerGas, e),
    maxPriorityFeePerGas: absent(v.maxPriorityFeePerGas) ? undefined : quantity(v.maxPriorityFeePerGas, e),
    value: absent(v.value) ? undefined : quantity(v.value, e),
    data: input ?? dataField,
    nonce: absent(v.nonce) ? undefined : uint64(v.nonce, e),
    maxFeePerBlobGas: absent(v.maxFeePerBlobGas) ? undefined : quantity(v.maxFeePerBlobGas, e),
    strict: absent(v.strict) ? undefined : bool(v.strict, e),
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

/** The call object as a parameter decoder. */
export const callObject: Decoder<CallRequest> = Object.assign((value: unknown) => decodeCallObject(value), {
  defaultError: INVALID_CALL_PARAMS,
});

/** The state override set as a parameter decoder (absent or null: undefined). */
export const stateOverrides: Decoder<StateOverrides | undefined> = Object.assign(
  (value: unknown) => decodeOverrides(value),
  { defaultError: INVALID_CALL_PARAMS },
);
