/**
 * eth_estimateGas: decodes the call (block number or tag, `pending` when absent, decoded before the
 * call object and looked up after it; then the overrides), runs the gas-estimate search of
 * `execution/gasEstimator.ts`, formats the figure.
 */
import { estimateGas } from '../../../execution/gasEstimator.js';
import { quantity } from '../../format/hex.js';
import { deferred, defineMethod } from '../define.js';
import {
  callObject,
  estimateBlock,
  estimateHeader,
  invalidSimulation,
  simulatorOf,
  stateOverrides,
} from './call.js';

export const ethEstimateGas = defineMethod({
  name: 'eth_estimateGas',
  group: 'ETH',
  params: [callObject, estimateBlock, deferred(stateOverrides)],
  order: [1, 0, 2],
  async handler([call, block, overrides], { services }) {
    const header = estimateHeader(services, block);
    try {
      return quantity(await estimateGas(simulatorOf(services), header, call, overrides()));
    } catch (err) {
      invalidSimulation(err);
    }
  },
});
