/**
 * eth_gasPrice and eth_maxPriorityFeePerGas, answered by the chain's fee oracle (`chain/fees.ts`):
 * a percentile of the prices paid in the last --api-gas-price-blocks blocks, clamped to the node's
 * floor and --api-gas-price-max.
 */
import { quantity } from '../../format/hex.js';
import { defineMethod } from '../define.js';
import type { RpcMethod } from '../types.js';

export const ethGasPrice = defineMethod({
  name: 'eth_gasPrice',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => quantity(services.fees.gasPrice()),
});

export const ethMaxPriorityFeePerGas = defineMethod({
  name: 'eth_maxPriorityFeePerGas',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => quantity(services.fees.maxPriorityFee()),
});

export const gasPriceMethods: RpcMethod[] = [ethGasPrice, ethMaxPriorityFeePerGas];
