/**
 * eth_estimateGas: decodes the call (block number or tag, `pending` when absent; see
 * `estimateInputAt`), runs the gas-estimate search of `execution/gasEstimator.ts`, formats the figure.
 */
import { estimateGas } from '../../../execution/gasEstimator.js';
import { quantity } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';
import { estimateInputAt, invalidSimulation, simulatorOf } from './call.js';

export const ethEstimateGas: RpcMethod = {
  name: 'eth_estimateGas',
  group: 'ETH',
  async handler(params, { services }) {
    const { header, call, overrides } = estimateInputAt(services, params);
    try {
      return quantity(await estimateGas(simulatorOf(services), header, call, overrides));
    } catch (err) {
      invalidSimulation(err);
    }
  },
};
