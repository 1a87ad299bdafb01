/**
 * The consensus encoding of a receipt `runTx` gives (block building and import; EIP-2718: the type byte,
 * then RLP([status or post-state root, cumulative gas, bloom, logs])), written into one buffer sized
 * beforehand. The generic RLP encoder copies every nested list once per level (the logs of an ERC-20
 * transfer three times); this writes each byte once. Equal to the library's `encodeReceipt` byte for
 * byte (test).
 */
import { bigIntToBytes } from '@ethereumjs/util';

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

/** Bytes of a length prefix for `len` bytes of content beyond the short form (55 bytes). */
function lengthOfLength(len: number): number {
  let n = 0;
  for (let v = len; v > 0; v = Math.floor(v / 256)) n++;
  return n;
}

/** Encoded size of a byte string. */
function stringSize(b: Uint8Array): number {
  if (b.length === 1 && (b[0] as number) < 0x80) return 1;
  return b.length <= 55 ? 1 + b.length : 1 + lengthOfLength(b.length) + b.length;
}

/** Encoded size of a list whose items take `payload` bytes. */
function listSize(payload: number): number {
  return payload <= 55 ? 1 + payload : 1 + lengthOfLength(payload) + payload;
}

function writeHeader(out: Uint8Array, at: number, len: number, short: number, long: number): number {
  if (len <= 55) {
    out[at] = short + len;
    return at + 1;
  }
  const n = lengthOfLength(len);
  out[at] = long + n;
  for (let i = n, v = len; i > 0; i--, v = Math.floor(v / 256)) out[at + i] = v % 256;
  return at + 1 + n;
}

function writeString(out: Uint8Array, at: number, b: Uint8Array): number {
  if (b.length === 1 && (b[0] as number) < 0x80) {
    out[at] = b[0] as number;
    return at + 1;
  }
  const from = writeHeader(out, at, b.length, 0x80, 0xb7);
  out.set(b, from);
  return from + b.length;
}

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
    for (const topic of topics) t += stringSize(topic);
    topicSizes[i] = t;
    const size = stringSize(address) + listSize(t) + stringSize(data);
    logPayloads[i] = size;
    logsPayload += listSize(size);
  }
  const payload = stringSize(first) + stringSize(gas) + stringSize(receipt.bitvector) + listSize(logsPayload);
  const typed = txType !== 0;
  const out = new Uint8Array((typed ? 1 : 0) + listSize(payload));
  let at = 0;
  if (typed) out[at++] = txType;
  at = writeHeader(out, at, payload, 0xc0, 0xf7);
  at = writeString(out, at, first);
  at = writeString(out, at, gas);
  at = writeString(out, at, receipt.bitvector);
  at = writeHeader(out, at, logsPayload, 0xc0, 0xf7);
  for (let i = 0; i < logs.length; i++) {
    const [address, topics, data] = logs[i] as Log;
    at = writeHeader(out, at, logPayloads[i] as number, 0xc0, 0xf7);
    at = writeString(out, at, address);
    at = writeHeader(out, at, topicSizes[i] as number, 0xc0, 0xf7);
    for (const topic of topics) at = writeString(out, at, topic);
    at = writeString(out, at, data);
  }
  return out;
}
