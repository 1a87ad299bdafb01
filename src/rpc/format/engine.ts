/** Engine API answers in Besu's member order: payload statuses, execution payloads, bodies, blobs. */
import type { Block } from '@ethereumjs/block';
import { bigIntToHex, bytesToHex, type Withdrawal } from '@ethereumjs/util';
import type {
  BuiltPayload,
  ForkchoiceResult,
  PayloadBody,
  PayloadStatus,
} from '../../consensus/merge/engineService.js';

const hex = bytesToHex;
const qty = bigIntToHex;

export function formatPayloadStatus(s: PayloadStatus) {
  return {
    status: s.status,
    latestValidHash: s.latestValidHash ? hex(s.latestValidHash) : null,
    validationError: s.validationError,
  };
}

export function formatForkchoiceResult(r: ForkchoiceResult) {
  return {
    payloadStatus: formatPayloadStatus(r.payloadStatus),
    payloadId: r.payloadId ? hex(r.payloadId) : null,
  };
}

export function formatWithdrawal(w: Withdrawal) {
  return {
    index: qty(w.index),
    validatorIndex: qty(w.validatorIndex),
    address: w.address.toString(),
    amount: qty(w.amount),
  };
}

/** The execution payload of `block`; `version` adds withdrawals (2) and blob gas fields (3). */
export function formatExecutionPayload(block: Block, version: number) {
  const h = block.header;
  const out: Record<string, unknown> = {
    parentHash: hex(h.parentHash),
    feeRecipient: h.coinbase.toString(),
    stateRoot: hex(h.stateRoot),
    receiptsRoot: hex(h.receiptTrie),
    logsBloom: hex(h.logsBloom),
    prevRandao: hex(h.mixHash),
    blockNumber: qty(h.number),
    gasLimit: qty(h.gasLimit),
    gasUsed: qty(h.gasUsed),
    timestamp: qty(h.timestamp),
    extraData: hex(h.extraData),
    baseFeePerGas: qty(h.baseFeePerGas ?? 0n),
    blockHash: hex(block.hash()),
    transactions: block.transactions.map((tx) => hex(tx.serialize())),
  };
  if (version >= 2) out.withdrawals = (block.withdrawals ?? []).map(formatWithdrawal);
  if (version >= 3) {
    out.blobGasUsed = qty(h.blobGasUsed ?? 0n);
    out.excessBlobGas = qty(h.excessBlobGas ?? 0n);
  }
  return out;
}

/** engine_getPayloadV1…V5 (V1 is the bare payload). */
export function formatGetPayload(p: BuiltPayload, version: number) {
  const payload = formatExecutionPayload(p.block, version === 1 ? 1 : version === 2 ? 2 : 3);
  if (version === 1) return payload;
  const out: Record<string, unknown> = { executionPayload: payload, blockValue: qty(p.blockValue) };
  if (version >= 3) {
    out.blobsBundle = {
      commitments: p.blobsBundle.commitments.map(hex),
      proofs: p.blobsBundle.proofs.map(hex),
      blobs: p.blobsBundle.blobs.map(hex),
    };
    out.shouldOverrideBuilder = false;
  }
  if (version >= 4) out.executionRequests = (p.executionRequests ?? []).map(hex);
  return out;
}

export function formatPayloadBody(b: PayloadBody | null) {
  if (b === null) return null;
  return {
    transactions: b.transactions.map(hex),
    withdrawals: b.withdrawals ? b.withdrawals.map(formatWithdrawal) : null,
  };
}
