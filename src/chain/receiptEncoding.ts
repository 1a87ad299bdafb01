/**
 * The consensus encoding of a receipt `runTx` gives (block building and import; EIP-2718: the type byte,
 * then RLP([status or post-state root, cumulative gas, bloom, logs])), written into one buffer sized
 * beforehand. The generic RLP encoder copies every nested list once per level (the logs of an ERC-20
 * transfer three times); this writes each byte once. Equal to the library's `encodeReceipt` byte for
 * byte (test).
 */
import { bigIntToBytes } from '@ethereumjs/util';
import { rlpListSize, rlpStringSize, writeRlpHeader, writeRlpString } from '../util/rlpWrite.js';

/** A log as the EVM returns it: address, topics, data. */
type Log = [Uint8Array, Uint8Array[], Uint8Array];

export interface BuiltReceipt {
  /** Byzantium on: 1 success, 0 failure. */
  status?: 0 | 1;
  /** Before Byzantium: the post-transaction state root instead of a status. */
  stateRoot?: Uint8Array;
  cumulativeBlockGasUsed: bigint;
  bitvector: Uint8Array;
  logs: unknown[];
}

const EMPTY = new Uint8Array(0);
const ONE = Uint8Array.of(1);

/** The receipt of a transaction of type `txType` as it goes into the receipts trie and the database. */
export function encodeBuiltReceipt(receipt: BuiltReceipt, txType: number): Uint8Array {
  const first = receipt.stateRoot ?? (receipt.status === 0 ? EMPTY : ONE);
  const gas = bigIntToBytes(receipt.cumulativeBlockGasUsed);
  const logs = receipt.logs as Log[];
  const logPayloads = new Array<number>(logs.length);
  const topicSizes = new Array<number>(logs.length);
  let logsPayload = 0;
  for (let i = 0; i < logs.length; i++) {
    const [address, topics, data] = logs[i] as Log;
    let t = 0;
    for (const topic of topics) t += rlpStringSize(topic);
    topicSizes[i] = t;
    const size = rlpStringSize(address) + rlpListSize(t) + rlpStringSize(data);
    logPayloads[i] = size;
    logsPayload += rlpListSize(size);
  }
  const payload =
    rlpStringSize(first) + rlpStringSize(gas) + rlpStringSize(receipt.bitvector) + rlpListSize(logsPayload);
  const typed = txType !== 0;
  const out = new Uint8Array((typed ? 1 : 0) + rlpListSize(payload));
  let at = 0;
  if (typed) out[at++] = txType;
  at = writeRlpHeader(out, at, payload, true);
  at = writeRlpString(out, at, first);
  at = writeRlpString(out, at, gas);
  at = writeRlpString(out, at, receipt.bitvector);
  at = writeRlpHeader(out, at, logsPayload, true);
  for (let i = 0; i < logs.length; i++) {
    const [address, topics, data] = logs[i] as Log;
    at = writeRlpHeader(out, at, logPayloads[i] as number, true);
    at = writeRlpString(out, at, address);
    at = writeRlpHeader(out, at, topicSizes[i] as number, true);
    for (const topic of topics) at = writeRlpString(out, at, topic);
    at = writeRlpString(out, at, data);
  }
  return out;
}
