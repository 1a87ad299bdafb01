/**
 * Included transactions: eth_getTransactionByHash, eth_getTransactionByBlockHashAndIndex,
 * eth_getTransactionByBlockNumberAndIndex. Unknown transactions answer null.
 */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  INVALID_BLOCK_PARAMS,
  INVALID_TRANSACTION_HASH_PARAMS,
  INVALID_TRANSACTION_ID_PARAMS,
  INVALID_TRANSACTION_INDEX_PARAMS,
} from '../../errors.js';
import { txLocationBase } from '../../format/block.js';
import { bytes, hexToBytes } from '../../format/hex.js';
import { formatTransaction, type TxJson } from '../../format/transaction.js';
import { blockNumberParam, hash32, param, requireParamCount, uint64 } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';
import { blockByNumberParam } from './blocks.js';

/** The transaction at `index` of a block, formatted, or null. */
export function transactionInBlock(services: Services, block: Block, index: bigint): TxJson | null {
  if (index >= BigInt(block.transactions.length)) return null;
  const i = Number(index);
  const tx = block.transactions[i] as TypedTransaction;
  const header = block.header;
  const hash = header.hash();
  const sender = services.chain.getSenders(hash)?.[i] ?? tx.getSenderAddress();
  return formatTransaction(tx, sender, { ...txLocationBase(header, bytes(hash)), index: i });
}

export function txHashParam(params: readonly unknown[], index: number): Uint8Array {
  return hexToBytes(param(params, index, hash32, INVALID_TRANSACTION_HASH_PARAMS));
}

export const ethGetTransactionByHash: RpcMethod = {
  name: 'eth_getTransactionByHash',
  group: 'ETH',
  handler(params, { services }) {
    requireParamCount(params, 1);
    const hash = txHashParam(params, 0);
    const location = services.chain.getTxLocation(hash);
    if (!location) {
      const pooled = services.txPool?.get(hash);
      return pooled ? formatTransaction(pooled.tx, pooled.sender) : null;
    }
    const block = services.chain.getBlock(location.blockHash);
    return block ? transactionInBlock(services, block, BigInt(location.index)) : null;
  },
};

export const ethGetTransactionByBlockHashAndIndex: RpcMethod = {
  name: 'eth_getTransactionByBlockHashAndIndex',
  group: 'ETH',
  handler(params, { services }) {
    // Besu words a bad block hash here as a bad transaction hash.
    const hash = txHashParam(params, 0);
    const index = param(params, 1, uint64, INVALID_TRANSACTION_ID_PARAMS);
    const block = services.chain.getBlock(hash);
    return block ? transactionInBlock(services, block, index) : null;
  },
};

export const ethGetTransactionByBlockNumberAndIndex: RpcMethod = {
  name: 'eth_getTransactionByBlockNumberAndIndex',
  group: 'ETH',
  handler(params, { services }) {
    const p = param(params, 0, blockNumberParam, INVALID_BLOCK_PARAMS);
    const index = param(params, 1, uint64, INVALID_TRANSACTION_INDEX_PARAMS);
    const block = blockByNumberParam(services, p);
    return block ? transactionInBlock(services, block, index) : null;
  },
};

export const transactionMethods: RpcMethod[] = [
  ethGetTransactionByHash,
  ethGetTransactionByBlockHashAndIndex,
  ethGetTransactionByBlockNumberAndIndex,
];
