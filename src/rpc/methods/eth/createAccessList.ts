/**
 * eth_createAccessList: decodes the call as eth_estimateGas does, builds the access list with
 * `execution/accessListBuilder.ts`, and reports it with the gas the call uses with it (and the
 * error it ended with, if it failed).
 */
import { createAccessList } from '../../../execution/accessListBuilder.js';
import { bytes, quantity } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';
import { estimateInputAt, failureError, invalidSimulation, simulatorOf } from './call.js';

export const ethCreateAccessList: RpcMethod = {
  name: 'eth_createAccessList',
  group: 'ETH',
  async handler(params, { services }) {
    const { header, call, overrides } = estimateInputAt(services, params);
    let result: Awaited<ReturnType<typeof createAccessList>>;
    try {
      result = await createAccessList(simulatorOf(services), header, call, overrides);
    } catch (err) {
      invalidSimulation(err);
    }
    const { accessList, withList } = result;
    const out: Record<string, unknown> = {
      accessList: accessList.map(([addr, keys]) => ({ address: bytes(addr), storageKeys: keys.map(bytes) })),
    };
    if (withList.status !== 'success') out.error = failureError(withList).message;
    out.gasUsed = quantity(withList.gasUsed);
    return out;
  },
};
