/**
 * Receipts: eth_getTransactionReceipt, eth_getBlockReceipts. Unknown transactions and blocks answer null.
 */
import type { Block } from '@ethereumjs/block';
import { resolveHeader } from '../../blockParam.js';
import { INVALID_BLOCK_PARAMS } from '../../errors.js';
import { formatBlockReceipts, formatReceiptAt } from '../../format/receipt.js';
import { blockParam, param } from '../../params.js';
import type { RpcMethod } from '../types.js';
import { txHashParam } from './transactions.js';

export const ethGetTransactionReceipt: RpcMethod = {
  name: 'eth_getTransactionReceipt',
  group: 'ETH',
  handler(params, { services }) {
    const chain = services.chain;
    const location = chain.getTxLocation(txHashParam(params, 0));
    if (!location) return null;
    const block = chain.getBlock(location.blockHash);
    const receipts = chain.getReceipts(location.blockHash);
    if (!block || !receipts || location.index >= receipts.length) return null;
    return formatReceiptAt(block, receipts, chain.getSenders(location.blockHash), location.index);
  },
};

export const ethGetBlockReceipts: RpcMethod = {
  name: 'eth_getBlockReceipts',
  group: 'ETH',
  handler(params, { services }) {
    const chain = services.chain;
    const header = resolveHeader(chain, param(params, 0, blockParam, INVALID_BLOCK_PARAMS));
    if (!header) return null;
    const hash = header.hash();
    const block: Block | undefined = chain.getBlock(hash);
    const receipts = chain.getReceipts(hash);
    if (!block || !receipts) return null;
    return formatBlockReceipts(block, receipts, chain.getSenders(hash));
  },
};

export const receiptMethods: RpcMethod[] = [ethGetTransactionReceipt, ethGetBlockReceipts];
