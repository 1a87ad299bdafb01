/**
 * eth_gasPrice and eth_maxPriorityFeePerGas: a percentile of the prices paid in the last
 * --api-gas-price-blocks blocks (head included), clamped to the node's floor and --api-gas-price-max.
 * eth_gasPrice samples the gas price of legacy and access-list transactions (EIP-1559 ones are left
 * out, as in Besu) and its floor is --min-gas-price, raised to the next block's base fee on a
 * fee-market chain; with no sample the floor is the answer.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { quantity } from '../../format/hex.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

function percentileOf(values: bigint[], percentile: number): bigint | undefined {
  if (values.length === 0) return undefined;
  values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = Math.min(values.length - 1, Math.floor((values.length * percentile) / 100));
  return values[index];
}

function recentBlocks(services: Services): Array<{ header: BlockHeader; txs: readonly unknown[] }> {
  const { chain, config } = services;
  const head = chain.head().number;
  const out: Array<{ header: BlockHeader; txs: readonly unknown[] }> = [];
  const count = BigInt(Math.max(0, config.apiGasPriceBlocks));
  for (let n = head; n >= 0n && head - n < count; n--) {
    const block = chain.getBlockByNumber(n);
    if (block) out.push({ header: block.header, txs: block.transactions });
  }
  return out;
}

function nextBaseFee(head: BlockHeader): bigint | undefined {
  if (!head.common.isActivatedEIP(1559)) return undefined;
  try {
    return head.calcNextBaseFee();
  } catch {
    return head.baseFeePerGas;
  }
}

export function gasPriceEstimate(services: Services): bigint {
  const { config } = services;
  const prices: bigint[] = [];
  for (const { txs } of recentBlocks(services)) {
    for (const tx of txs as Array<{ type: number; gasPrice?: bigint }>) {
      if ((tx.type === 0 || tx.type === 1) && tx.gasPrice !== undefined) prices.push(tx.gasPrice);
    }
  }
  let floor = config.minGasPrice;
  const next = nextBaseFee(services.chain.headHeader());
  if (next !== undefined && next > floor) floor = next;
  const picked = percentileOf(prices, config.apiGasPricePercentile);
  if (picked === undefined) return floor;
  if (picked < floor) return floor;
  return picked > config.apiGasPriceMax ? config.apiGasPriceMax : picked;
}

export function priorityFeeEstimate(services: Services): bigint {
  const { config } = services;
  const fees: bigint[] = [];
  for (const { header, txs } of recentBlocks(services)) {
    const baseFee = header.baseFeePerGas ?? 0n;
    for (const tx of txs as Array<{ getEffectivePriorityFee(baseFee: bigint): bigint }>) {
      try {
        fees.push(tx.getEffectivePriorityFee(baseFee));
      } catch {
        // a transaction priced under the base fee cannot be in a valid block
      }
    }
  }
  const picked = percentileOf(fees, config.apiGasPricePercentile);
  if (picked === undefined || picked < config.minPriorityFee) return config.minPriorityFee;
  return picked;
}

export const ethGasPrice: RpcMethod = {
  name: 'eth_gasPrice',
  group: 'ETH',
  handler(_params, { services }) {
    return quantity(gasPriceEstimate(services));
  },
};

export const ethMaxPriorityFeePerGas: RpcMethod = {
  name: 'eth_maxPriorityFeePerGas',
  group: 'ETH',
  handler(_params, { services }) {
    return quantity(priorityFeeEstimate(services));
  },
};

export const gasPriceMethods: RpcMethod[] = [ethGasPrice, ethMaxPriorityFeePerGas];
