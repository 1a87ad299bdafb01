/**
 * Receipts: eth_getTransactionReceipt, eth_getBlockReceipts. Unknown transactions and blocks answer null.
 */
import type { Block } from '@ethereumjs/block';
import { resolveHeader } from '../../blockParam.js';
import { INVALID_BLOCK_PARAMS, INVALID_TRANSACTION_HASH_PARAMS } from '../../errors.js';
import { formatBlockReceipts, formatReceiptAt } from '../../format/receipt.js';
import { blockParam, hashBytes } from '../../params.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';

export const ethGetTransactionReceipt = defineMethod({
  name: 'eth_getTransactionReceipt',
  group: 'ETH',
  params: [required(hashBytes, INVALID_TRANSACTION_HASH_PARAMS)],
  handler([txHash], { services }) {
    const chain = services.chain;
    const location = chain.getTxLocation(txHash);
    if (!location) return null;
    const block = chain.getBlock(location.blockHash);
    const receipts = chain.getReceipts(location.blockHash);
    if (!block || !receipts || location.index >= receipts.length) return null;
    return formatReceiptAt(block, receipts, chain.getSenders(location.blockHash), location.index);
  },
});

export const ethGetBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  group: 'ETH',
  params: [required(blockParam, INVALID_BLOCK_PARAMS)],
  handler([p], { services }) {
    const chain = services.chain;
    const header = resolveHeader(chain, p);
    if (!header) return null;
    const hash = header.hash();
    const block: Block | undefined = chain.getBlock(hash);
    const receipts = chain.getReceipts(hash);
    if (!block || !receipts) return null;
    return formatBlockReceipts(block, receipts, chain.getSenders(hash));
  },
});

export const receiptMethods: RpcMethod[] = [ethGetTransactionReceipt, ethGetBlockReceipts];
