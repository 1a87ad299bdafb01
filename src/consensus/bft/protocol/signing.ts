/**
 * Signatures of BFT messages and committed seals: secp256k1 over a 32-byte hash, 65 bytes r ‖ s ‖
 * recovery id (0 or 1), with s in the lower half of the curve order as Besu demands of every signed
 * message. The author of a message is the address its signature recovers to.
 */
import { ecdsaRecover, ecdsaSign, keccak256 } from '../../../crypto/index.js';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N >> 1n;

export class BadSignatureError extends Error {
  constructor(detail: string) {
    super(`bad signature: ${detail}`);
    this.name = 'BadSignatureError';
  }
}

function scalar(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

/** Lowercase `0x…` address of a 64- or 65-byte public key. */
export function addressOfKey(publicKey: Uint8Array): string {
  const raw = publicKey.length === 65 ? publicKey.subarray(1) : publicKey;
  return `0x${Buffer.from(keccak256(raw).subarray(12)).toString('hex')}`;
}

/** Signs `hash` (32 bytes) with `privateKey`: 65 bytes r ‖ s ‖ v (v = 0 or 1, s low). */
export function sign(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { signature, recid } = ecdsaSign(hash, privateKey);
  const out = new Uint8Array(65);
  out.set(signature, 0);
  out[64] = recid;
  return out;
}

/** The address that signed `hash`; throws `BadSignatureError` for anything that is not a valid one. */
export function recoverAddress(signature: Uint8Array, hash: Uint8Array): string {
  if (signature.length !== 65) throw new BadSignatureError(`${signature.length} bytes, not 65`);
  const v = signature[64] as number;
  if (v > 1) throw new BadSignatureError(`recovery id ${v}`);
  const r = scalar(signature.subarray(0, 32));
  const s = scalar(signature.subarray(32, 64));
  if (r === 0n || r >= N || s === 0n) throw new BadSignatureError('r or s out of range');
  if (s > HALF_N) throw new BadSignatureError('s is in the upper half of the curve order');
  try {
    return addressOfKey(ecdsaRecover(signature.subarray(0, 64), v, hash));
  } catch (err) {
    throw new BadSignatureError((err as Error).message);
  }
}
