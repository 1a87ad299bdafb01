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
import { bytes } from '../../format/hex.js';
import { formatTransaction, type TxJson } from '../../format/transaction.js';
import { blockNumberParam, hashBytes, uint64 } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, required } from '../define.js';
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

export const ethGetTransactionByHash = defineMethod({
  name: 'eth_getTransactionByHash',
  group: 'ETH',
  arity: 1,
  params: [required(hashBytes, INVALID_TRANSACTION_HASH_PARAMS)],
  handler([hash], { services }) {
    const location = services.chain.getTxLocation(hash);
    if (!location) {
      const pooled = services.txPool?.get(hash);
      return pooled ? formatTransaction(pooled.tx, pooled.sender) : null;
    }
    const block = services.chain.getBlock(location.blockHash);
    return block ? transactionInBlock(services, block, BigInt(location.index)) : null;
  },
});

export const ethGetTransactionByBlockHashAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockHashAndIndex',
  group: 'ETH',
  // Besu words a bad block hash here as a bad transaction hash.
  params: [
    required(hashBytes, INVALID_TRANSACTION_HASH_PARAMS),
    required(uint64, INVALID_TRANSACTION_ID_PARAMS),
  ],
  handler([hash, index], { services }) {
    const block = services.chain.getBlock(hash);
    return block ? transactionInBlock(services, block, index) : null;
  },
});

export const ethGetTransactionByBlockNumberAndIndex = defineMethod({
  name: 'eth_getTransactionByBlockNumberAndIndex',
  group: 'ETH',
  params: [
    required(blockNumberParam, INVALID_BLOCK_PARAMS),
    required(uint64, INVALID_TRANSACTION_INDEX_PARAMS),
  ],
  handler([p, index], { services }) {
    const block = blockByNumberParam(services, p);
    return block ? transactionInBlock(services, block, index) : null;
  },
});

export const transactionMethods: RpcMethod[] = [
  ethGetTransactionByHash,
  ethGetTransactionByBlockHashAndIndex,
  ethGetTransactionByBlockNumberAndIndex,
];
