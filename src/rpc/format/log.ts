/**
 * Logs as eth_getLogs and filters return them (Besu's `LogResult` member order). Receipts embed logs
 * with another member order; see receipt.ts.
 */
import type { LogEntry } from '../../filters/logs.js';
import { bytes, quantity } from './hex.js';

export type LogJson = Record<string, unknown>;

function topicsJson(topics: readonly Uint8Array[]): string[] {
  const out = new Array<string>(topics.length);
  for (let i = 0; i < topics.length; i++) out[i] = bytes(topics[i] as Uint8Array);
  return out;
}

/** Formats many logs, encoding each block's and transaction's shared values once. */
export function formatLogs(entries: readonly LogEntry[]): LogJson[] {
  const out = new Array<LogJson>(entries.length);
  let lastBlock: Uint8Array | undefined;
  let blockHash = '';
  let blockNumber = '';
  let blockTimestamp = '';
  let lastTx: Uint8Array | undefined;
  let txHash = '';
  let txIndex = '';
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as LogEntry;
    if (e.blockHash !== lastBlock) {
      lastBlock = e.blockHash;
      blockHash = bytes(e.blockHash);
      blockNumber = quantity(e.blockNumber);
      blockTimestamp = quantity(e.blockTimestamp);
    }
    if (e.transactionHash !== lastTx) {
      lastTx = e.transactionHash;
      txHash = bytes(e.transactionHash);
      txIndex = quantity(e.transactionIndex);
    }
    out[i] = {
      logIndex: quantity(e.logIndex),
      removed: e.removed,
      blockNumber,
      blockHash,
      blockTimestamp,
      transactionHash: txHash,
      transactionIndex: txIndex,
      address: bytes(e.address),
      data: bytes(e.data),
      topics: topicsJson(e.topics),
    };
  }
  return out;
}

export function formatLog(entry: LogEntry): LogJson {
  return formatLogs([entry])[0] as LogJson;
}

export { topicsJson };
