/**
 * Transaction receipts as Besu writes them (`TransactionReceiptResult`): `root` before Byzantium and
 * `status` after, blob gas members for blob transactions, logs with their block-wide index.
 * Stored receipts carry only cumulative gas, so each receipt's gas is the difference with the previous.
 */
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import { effectiveGasPrice } from '../../chain/fees.js';
import { contractAddressOf, type StoredReceipt } from '../../chain/receipts.js';
import { BLOB_GAS_PER_BLOB } from '../../config/genesis.js';
import { bytes, quantity } from './hex.js';
import { topicsJson } from './log.js';

export type ReceiptJson = Record<string, unknown>;

interface BlockHex {
  blockHash: string;
  blockNumber: string;
  blockTimestamp: string;
  baseFee: bigint | undefined;
  blobGasPrice: bigint | undefined;
}

function blockHex(block: Block): BlockHex {
  const h = block.header;
  return {
    blockHash: bytes(h.hash()),
    blockNumber: quantity(h.number),
    blockTimestamp: quantity(h.timestamp),
    baseFee: h.baseFeePerGas,
    blobGasPrice: h.excessBlobGas !== undefined ? h.getBlobGasPrice() : undefined,
  };
}

function formatOne(
  b: BlockHex,
  tx: TypedTransaction,
  sender: Address,
  receipt: StoredReceipt,
  index: number,
  gasUsed: bigint,
  firstLogIndex: number,
): ReceiptJson {
  const txHash = bytes(tx.hash());
  const txIndex = quantity(index);
  const logs = new Array(receipt.logs.length);
  for (let i = 0; i < logs.length; i++) {
    const [address, topics, data] = receipt.logs[i] as StoredReceipt['logs'][number];
    logs[i] = {
      address: bytes(address),
      topics: topicsJson(topics),
      data: bytes(data),
      blockNumber: b.blockNumber,
      transactionHash: txHash,
      transactionIndex: txIndex,
      blockHash: b.blockHash,
      blockTimestamp: b.blockTimestamp,
      logIndex: quantity(firstLogIndex + i),
      removed: false,
    };
  }
  const out: ReceiptJson = {
    blockHash: b.blockHash,
    blockNumber: b.blockNumber,
    contractAddress: tx.to ? null : bytes(contractAddressOf(tx, sender) as Uint8Array),
    cumulativeGasUsed: quantity(receipt.cumulativeGasUsed),
    from: bytes(sender.bytes),
    gasUsed: quantity(gasUsed),
    effectiveGasPrice: quantity(effectiveGasPrice(tx, b.baseFee)),
    logs,
    logsBloom: bytes(receipt.bloom),
  };
  if (receipt.root !== undefined) out.root = bytes(receipt.root);
  else out.status = receipt.status === 1 ? '0x1' : '0x0';
  out.to = tx.to ? bytes(tx.to.bytes) : null;
  out.transactionHash = txHash;
  out.transactionIndex = txIndex;
  out.type = quantity(tx.type);
  if (tx.type === 3) {
    const blobs = (tx as unknown as { blobVersionedHashes: readonly string[] }).blobVersionedHashes.length;
    out.blobGasUsed = quantity(BigInt(blobs) * BLOB_GAS_PER_BLOB);
    out.blobGasPrice = quantity(b.blobGasPrice ?? 0n);
  }
  return out;
}

function senderAt(block: Block, senders: readonly Address[] | undefined, i: number): Address {
  return senders?.[i] ?? (block.transactions[i] as TypedTransaction).getSenderAddress();
}

/** Every receipt of a block, in transaction order. */
export function formatBlockReceipts(
  block: Block,
  receipts: readonly StoredReceipt[],
  senders: readonly Address[] | undefined,
): ReceiptJson[] {
  const b = blockHex(block);
  const out = new Array<ReceiptJson>(receipts.length);
  let previousGas = 0n;
  let logIndex = 0;
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i] as StoredReceipt;
    const tx = block.transactions[i] as TypedTransaction;
    out[i] = formatOne(b, tx, senderAt(block, senders, i), r, i, r.cumulativeGasUsed - previousGas, logIndex);
    previousGas = r.cumulativeGasUsed;
    logIndex += r.logs.length;
  }
  return out;
}

/** The receipt of the transaction at `index` of a block. */
export function formatReceiptAt(
  block: Block,
  receipts: readonly StoredReceipt[],
  senders: readonly Address[] | undefined,
  index: number,
): ReceiptJson {
  let logIndex = 0;
  for (let i = 0; i < index; i++) logIndex += (receipts[i] as StoredReceipt).logs.length;
  const r = receipts[index] as StoredReceipt;
  const previousGas = index > 0 ? (receipts[index - 1] as StoredReceipt).cumulativeGasUsed : 0n;
  const tx = block.transactions[index] as TypedTransaction;
  return formatOne(
    blockHex(block),
    tx,
    senderAt(block, senders, index),
    r,
    index,
    r.cumulativeGasUsed - previousGas,
    logIndex,
  );
}
