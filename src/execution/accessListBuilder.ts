/**
 * The access list of a call, as eth_createAccessList reports it: the call runs once recording every
 * address and slot it touched; the sender, the recipient and the precompiles are left out unless
 * storage of theirs was touched; then the call runs again with that list, for the gas it uses with
 * it.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { getActivePrecompiles } from '@ethereumjs/evm';
import type { AccessListEntry, CallRequest, StateOverrides } from './callTypes.js';
import type { CallSimulator, SimulationResult } from './simulator.js';

export interface AccessListResult {
  accessList: AccessListEntry[];
  /** The run with the list: its gas, and its revert or halt if it failed. */
  withList: SimulationResult;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
}

/** The touched addresses and slots worth listing (see the module comment). */
export function filterAccessList(
  touched: readonly AccessListEntry[],
  header: BlockHeader,
  call: CallRequest,
): AccessListEntry[] {
  const excluded = new Set<string>(getActivePrecompiles(header.common).keys());
  excluded.add(hex(call.from ?? new Uint8Array(20)));
  if (call.to) excluded.add(hex(call.to));
  return touched.filter(([addr, keys]) => keys.length > 0 || !excluded.has(hex(addr)));
}

/** Throws `InvalidSimulationError` when the call cannot run at all. */
export async function createAccessList(
  simulator: CallSimulator,
  header: BlockHeader,
  call: CallRequest,
  overrides?: StateOverrides,
): Promise<AccessListResult> {
  const traced = await simulator.simulate(header, call, { overrides, reportAccessList: true });
  const accessList = filterAccessList(traced.accessList ?? [], header, call);
  const withList = await simulator.simulate(header, { ...call, accessList }, { overrides });
  return { accessList, withList };
}
