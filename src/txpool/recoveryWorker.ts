/**
 * Sender recovery for the pool's intake, in a worker thread: hashing a transaction's signing payload
 * and recovering the secp256k1 public key are the largest costs of taking a transaction in, and here
 * they run beside the main thread, which meanwhile reads and decodes the next requests. The main
 * thread has already decoded each transaction with the library (so its bytes are canonical RLP of
 * the right shape) and worked out the recovery id; a batch arrives as one packed buffer of entries
 * (`packEntry`) and goes back as `RECOVERY_OUTPUT` bytes per entry: 1, the 64-byte public key and the
 * sender's 20-byte address when recovered (0 and zeros when not), then the transaction's hash
 * (keccak-256 of its bytes) in every case — the three hashes of taking a transaction in all run here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ecdsaRecover, keccak256 } from '../crypto/index.js';

export const RECOVERY_OUTPUT = 1 + 64 + 20 + 32;
/** Offsets in an output entry. */
export const OUTPUT_PUBLIC_KEY = 1;
export const OUTPUT_ADDRESS = 65;
export const OUTPUT_HASH = 85;

/** Marks the thread SenderRecovery starts (this module is also imported where a thread is not one). */
export const RECOVERY_THREAD = 'alder-sender-recovery';

export interface RecoveryRequest {
  id: number;
  input: Uint8Array;
}

export interface RecoveryReport {
  id: number;
  output: Uint8Array;
}

/** Bytes `packEntry` writes for a transaction of `rawLength` bytes with a chain id of `chainIdLength`. */
export function entrySize(rawLength: number, chainIdLength: number): number {
  return 4 + 1 + 1 + chainIdLength + rawLength;
}

/**
 * One entry: raw length (u32 big-endian), recovery id, chain id length, the chain id (big-endian,
 * minimal; only for an EIP-155 legacy transaction, whose signing payload carries it), the raw bytes.
 */
export function packEntry(
  out: Uint8Array,
  at: number,
  raw: Uint8Array,
  recovery: number,
  chainId: Uint8Array,
): number {
  const n = raw.length;
  out[at] = n >>> 24;
  out[at + 1] = (n >>> 16) & 0xff;
  out[at + 2] = (n >>> 8) & 0xff;
  out[at + 3] = n & 0xff;
  out[at + 4] = recovery;
  out[at + 5] = chainId.length;
  out.set(chainId, at + 6);
  out.set(raw, at + 6 + chainId.length);
  return at + entrySize(n, chainId.length);
}

/** Content start and end of the RLP item at `pos`, and where the next item starts. */
function item(b: Uint8Array, pos: number): [number, number] {
  const p = b[pos] as number;
  if (p < 0x80) return [pos, pos + 1];
  if (p <= 0xb7) return [pos + 1, pos + 1 + p - 0x80];
  if (p < 0xc0) return long(b, pos, p - 0xb7);
  if (p <= 0xf7) return [pos + 1, pos + 1 + p - 0xc0];
  return long(b, pos, p - 0xf7);
}
function long(b: Uint8Array, pos: number, lenOfLen: number): [number, number] {
  let len = 0;
  for (let i = 1; i <= lenOfLen; i++) len = len * 256 + (b[pos + i] as number);
  const start = pos + 1 + lenOfLen;
  return [start, start + len];
}

/** The RLP list header for a payload of `len` bytes. */
function listHeader(len: number): Uint8Array {
  if (len <= 55) return Uint8Array.of(0xc0 + len);
  const bytes: number[] = [];
  for (let v = len; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Uint8Array.of(0xf7 + bytes.length, ...bytes);
}

/** The RLP string encoding of the big-endian minimal `value` (empty: zero). */
function rlpString(value: Uint8Array): Uint8Array {
  if (value.length === 1 && (value[0] as number) < 0x80) return value;
  const out = new Uint8Array(1 + value.length);
  out[0] = 0x80 + value.length;
  out.set(value, 1);
  return out;
}

/** Start of every item of the list whose content spans [start, end). */
function itemStarts(b: Uint8Array, start: number, end: number): number[] {
  const starts: number[] = [];
  for (let pos = start; pos < end; pos = item(b, pos)[1]) starts.push(pos);
  return starts;
}

/**
 * The hash a transaction's signature covers, and its r and s, from its canonical encoding: a typed
 * transaction signs `type ‖ rlp(fields before the signature)`; a legacy one `rlp(first six fields)`,
 * with `chainId, 0, 0` appended under EIP-155 (`chainId` non-empty).
 */
export function signingHash(
  raw: Uint8Array,
  chainId: Uint8Array,
): { hash: Uint8Array; r: Uint8Array; s: Uint8Array } | undefined {
  const typed = (raw[0] as number) < 0xc0;
  const listAt = typed ? 1 : 0;
  const [start, end] = item(raw, listAt);
  const starts = itemStarts(raw, start, end);
  const n = starts.length;
  if (n < 4) return undefined;
  const [rStart, rEnd] = item(raw, starts[n - 2] as number);
  const [sStart, sEnd] = item(raw, starts[n - 1] as number);
  if (rEnd - rStart > 32 || sEnd - sStart > 32) return undefined;
  let payload: Uint8Array;
  if (typed) {
    const body = raw.subarray(start, starts[n - 3] as number);
    const header = listHeader(body.length);
    payload = new Uint8Array(1 + header.length + body.length);
    payload[0] = raw[0] as number;
    payload.set(header, 1);
    payload.set(body, 1 + header.length);
  } else {
    if (n !== 9) return undefined;
    const fields = raw.subarray(start, starts[6] as number);
    const suffix = chainId.length > 0 ? [rlpString(chainId), Uint8Array.of(0x80, 0x80)] : [];
    const bodyLength = fields.length + suffix.reduce((a, x) => a + x.length, 0);
    const header = listHeader(bodyLength);
    payload = new Uint8Array(header.length + bodyLength);
    payload.set(header, 0);
    let at = header.length;
    payload.set(fields, at);
    at += fields.length;
    for (const x of suffix) {
      payload.set(x, at);
      at += x.length;
    }
  }
  return { hash: keccak256(payload), r: raw.subarray(rStart, rEnd), s: raw.subarray(sStart, sEnd) };
}

/** Recovers the sender of every entry of a packed batch (the thread's work, or in place without one). */
export function recoverBatch(input: Uint8Array): Uint8Array {
  let count = 0;
  for (let at = 0; at < input.length; count++) at += entrySize(rawLength(input, at), input[at + 5] as number);
  const out = new Uint8Array(count * RECOVERY_OUTPUT);
  const sig = new Uint8Array(64);
  for (let at = 0, i = 0; at < input.length; i++) {
    const n = rawLength(input, at);
    const recovery = input[at + 4] as number;
    const cidLength = input[at + 5] as number;
    const chainId = input.subarray(at + 6, at + 6 + cidLength);
    const raw = input.subarray(at + 6 + cidLength, at + 6 + cidLength + n);
    at += entrySize(n, cidLength);
    const o = i * RECOVERY_OUTPUT;
    out.set(keccak256(raw), o + OUTPUT_HASH);
    try {
      const signed = signingHash(raw, chainId);
      if (!signed) continue;
      sig.fill(0);
      sig.set(signed.r, 32 - signed.r.length);
      sig.set(signed.s, 64 - signed.s.length);
      const pub = ecdsaRecover(sig, recovery, signed.hash).subarray(1);
      out[o] = 1;
      out.set(pub, o + OUTPUT_PUBLIC_KEY);
      out.set(keccak256(pub).subarray(12), o + OUTPUT_ADDRESS);
    } catch {
      // not recovered: the flag stays 0
    }
  }
  return out;
}

function rawLength(input: Uint8Array, at: number): number {
  return (
    (((input[at] as number) << 24) >>> 0) +
    ((input[at + 1] as number) << 16) +
    ((input[at + 2] as number) << 8) +
    (input[at + 3] as number)
  );
}

const port = parentPort;
if (port && workerData === RECOVERY_THREAD) {
  port.on('message', (msg: RecoveryRequest) => {
    const output = recoverBatch(msg.input);
    port.postMessage({ id: msg.id, output } satisfies RecoveryReport, [output.buffer as ArrayBuffer]);
  });
}
