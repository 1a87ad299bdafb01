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
import { signedParts } from '../chain/signedParts.js';
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
      const signed = signedParts(raw, chainId);
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
