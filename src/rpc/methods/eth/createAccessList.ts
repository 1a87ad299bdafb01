/**
 * eth_createAccessList: run the call once reporting every address and slot it touched, then run it
 * again with that list to report the gas it uses with the list. The sender, the recipient and the
 * precompiles are left out unless storage of theirs was touched.
 */
import { getActivePrecompiles } from '@ethereumjs/evm';
import type { AccessListEntry } from '../../../execution/simulator.js';
import { bytes, quantity } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';
import { estimateInputAt, failureError, simulateOrThrow } from './call.js';

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
}

export const ethCreateAccessList: RpcMethod = {
  name: 'eth_createAccessList',
  group: 'ETH',
  async handler(params, { services }) {
    const { header, call, overrides } = estimateInputAt(services, params);
    const traced = await simulateOrThrow(services, header, call, { overrides, reportAccessList: true });
    const excluded = new Set<string>(getActivePrecompiles(header.common).keys());
    excluded.add(hex(call.from ?? new Uint8Array(20)));
    if (call.to) excluded.add(hex(call.to));
    const list: AccessListEntry[] = (traced.accessList ?? []).filter(
      ([addr, keys]) => keys.length > 0 || !excluded.has(hex(addr)),
    );
    const withList = await simulateOrThrow(services, header, { ...call, accessList: list }, { overrides });
    const out: Record<string, unknown> = {
      accessList: list.map(([addr, keys]) => ({ address: bytes(addr), storageKeys: keys.map(bytes) })),
    };
    if (withList.status !== 'success') out.error = failureError(withList).message;
    out.gasUsed = quantity(withList.gasUsed);
    return out;
  },
};
