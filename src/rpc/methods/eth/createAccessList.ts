/**
 * eth_createAccessList: decodes the call as eth_estimateGas does, builds the access list with
 * `execution/accessListBuilder.ts`, and reports it with the gas the call uses with it (and the
 * error it ended with, if it failed).
 */
import { createAccessList } from '../../../execution/accessListBuilder.js';
import { bytes, quantity } from '../../format/hex.js';
import { deferred, defineMethod } from '../define.js';
import {
  callObject,
  estimateBlock,
  estimateHeader,
  failureError,
  invalidSimulation,
  simulatorOf,
  stateOverrides,
} from './call.js';

export const ethCreateAccessList = defineMethod({
  name: 'eth_createAccessList',
  group: 'ETH',
  params: [callObject, estimateBlock, deferred(stateOverrides)],
  order: [1, 0, 2],
  async handler([call, block, overrides], { services }) {
    const header = estimateHeader(services, block);
    let result: Awaited<ReturnType<typeof createAccessList>>;
    try {
      result = await createAccessList(simulatorOf(services), header, call, overrides());
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
});
