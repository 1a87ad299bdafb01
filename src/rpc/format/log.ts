/**
 * Logs as eth_getLogs and filters return them (Besu's `LogResult` member order). Receipts embed logs
 * with another member order; see receipt.ts.
 */
import type { LogEntry } from '../../filters/logs.js';
import { isAscii, RawJson } from '../rawJson.js';
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

/**
 * Logs serialised once each. The text is kept beside the entry object itself (weakly): entries of the
 * log query's block log cache live as long as that cache holds their block, so their texts are bounded
 * by it and leave with it; entries built for one answer leave with that answer.
 */
export class LogJsonCache {
  private readonly texts = new WeakMap<LogEntry, string>();
  /**
   * Every text made so far is ASCII (log members are hex strings and booleans, so this stays true; it
   * is checked as each text is made, and one exception turns it off for good).
   */
  private allAscii = true;

  /** Whether every text this cache has made is ASCII: then so is any array of them. */
  get ascii(): boolean {
    return this.allAscii;
  }

  /** The logs as a JSON array: each non-removed log's text from the cache, formatted on a miss. */
  answer(entries: readonly LogEntry[]): RawJson {
    if (entries.length === 0) return new RawJson('[]', true);
    const json = `[${this.piece(entries, true)}]`;
    return new RawJson(json, this.allAscii);
  }

  /** One log's JSON text. */
  text(e: LogEntry): string {
    if (e.removed) return this.made(JSON.stringify(formatLog(e)));
    let text = this.texts.get(e);
    if (text === undefined) {
      text = this.made(JSON.stringify(formatLog(e)));
      this.texts.set(e, text);
    }
    return text;
  }

  private made(text: string): string {
    if (this.allAscii && !isAscii(text)) this.allAscii = false;
    return text;
  }

  /**
   * The logs' texts joined by commas, for an array built piece by piece; `first` says whether these
   * open the array (otherwise the piece starts with a comma). Empty for no logs.
   */
  piece(entries: readonly LogEntry[], first: boolean): string {
    let out = '';
    for (let i = 0; i < entries.length; i++) {
      if (i > 0 || !first) out += ',';
      out += this.text(entries[i] as LogEntry);
    }
    return out;
  }
}
