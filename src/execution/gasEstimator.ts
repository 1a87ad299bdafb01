/**
 * The gas estimate of a call, as Besu works it out for eth_estimateGas: a first run at the upper
 * bound (the call's gas, else the block gas limit, within --rpc-gas-cap) must succeed, else its
 * revert or halt is the answer; then a binary search between the gas the run used and an optimistic
 * limit that leaves room for the 63/64 rule and a call stipend, stopping once the bounds are within
 * 1.5 % of each other. A plain transfer is answered at once with its 21000.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { CallRequest, StateOverrides } from './callTypes.js';
import { type CallSimulator, InvalidSimulationError, type SimulationResult } from './simulator.js';

const MIN_TX_COST = 21_000n;
const CALL_STIPEND = 2_300n;
const TOLERANCE = 0.015;

/** The call did not succeed at the upper bound: `result` is the revert or halt it ended with. */
export class CallFailedError extends Error {
  override name = 'CallFailedError';
  constructor(readonly result: SimulationResult) {
    super(result.status === 'revert' ? 'execution reverted' : (result.haltReason ?? 'execution halted'));
  }
}

/**
 * The gas the call needs. Throws `InvalidSimulationError` when the call cannot run at all, and
 * `CallFailedError` when it reverts or halts at the upper bound.
 */
export async function estimateGas(
  simulator: CallSimulator,
  header: BlockHeader,
  requested: CallRequest,
  overrides?: StateOverrides,
): Promise<bigint> {
  // A zero gas price counts as none.
  const call: CallRequest = requested.gasPrice === 0n ? { ...requested, gasPrice: undefined } : requested;
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
  const first = await simulator.simulate(header, call, { overrides, gasLimit: upper });
  if (first.status !== 'success') throw new CallFailedError(first);

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
