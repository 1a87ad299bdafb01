/**
 * eth_estimateGas as Besu answers it: a first run at the upper bound (the call's gas, else the block
 * gas limit, within --rpc-gas-cap) must succeed, else its revert or halt is the answer; then a
 * binary search between the gas the run used and an optimistic limit that leaves room for the
 * 63/64 rule and a call stipend, stopping once the bounds are within --estimate-gas-tolerance-ratio
 * (1.5 %) of each other. A plain transfer is answered at once with its 21000.
 */
import type { BlockHeader } from '@ethereumjs/block';
import {
  type CallRequest,
  InvalidSimulationError,
  type StateOverrides,
} from '../../../execution/simulator.js';
import { quantity } from '../../format/hex.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';
import { estimateInputAt, failureError, simulateOrThrow, simulatorOf } from './call.js';

const MIN_TX_COST = 21_000n;
const CALL_STIPEND = 2_300n;
const TOLERANCE = 0.015;

export async function estimateGas(
  services: Services,
  header: BlockHeader,
  requested: CallRequest,
  overrides?: StateOverrides,
): Promise<bigint> {
  // A zero gas price counts as none.
  const call: CallRequest = requested.gasPrice === 0n ? { ...requested, gasPrice: undefined } : requested;
  const simulator = simulatorOf(services);
  const succeeds = async (gasLimit: bigint): Promise<boolean> => {
    try {
      const r = await simulator.simulate(header, call, { overrides, gasLimit });
      return r.status === 'success';
    } catch (err) {
      if (err instanceof InvalidSimulationError) return false;
      throw err;
    }
  };

  if (await succeeds(MIN_TX_COST)) return MIN_TX_COST;

  const upper = simulator.gasLimitFor(header, call);
  const first = await simulateOrThrow(services, header, call, { overrides, gasLimit: upper });
  if (first.status !== 'success') throw failureError(first);

  let high = upper;
  let low = first.gasUsedBeforeRefund - 1n;
  // 64/63 of the used gas plus a stipend, truncated as a Java double to long.
  const optimistic = BigInt(Math.floor((Number(first.gasUsedBeforeRefund + CALL_STIPEND) * 64) / 63));
  if (await succeeds(optimistic)) high = optimistic;
  else low = optimistic;

  while (low + 1n < high) {
    if (Number(high - low) / Number(high) < TOLERANCE) break;
    const mid = (low + high) / 2n;
    if (await succeeds(mid)) high = mid;
    else low = mid;
  }
  return high;
}

export const ethEstimateGas: RpcMethod = {
  name: 'eth_estimateGas',
  group: 'ETH',
  async handler(params, { services }) {
    const { header, call, overrides } = estimateInputAt(services, params);
    return quantity(await estimateGas(services, header, call, overrides));
  },
};
