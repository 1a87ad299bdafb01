/**
 * Cryptography for the protocol libraries: keccak-256 on an own WebAssembly module (keccakWasm.ts;
 * ~4× the native binding for short inputs, ~13× the pure JS path), keccak-512 and secp256k1 recovery
 * through native add-ons (measured ~3× and ~25× faster than the pure JS paths), KZG through c-kzg.
 * Passed to every Common as `customCrypto`.
 */

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { CustomCrypto } from '@ethereumjs/common';
import { bytesToHex, hexToBytes, type KZG } from '@ethereumjs/util';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { keccak_512 } from '@noble/hashes/sha3.js';
import { wasmKeccak256 } from './keccakWasm.js';

const require = createRequire(import.meta.url);

interface KeccakStateCtor {
  new (): {
    initialize(rate: number, capacity: number): void;
    absorb(data: Uint8Array): void;
    absorbLastFewBits(bits: number): void;
    squeeze(length: number): Buffer;
  };
}

/** Keccak with the given output size (32 or 64 bytes) over the native sponge. */
function loadNativeKeccak(bytes: 32 | 64): ((msg: Uint8Array) => Uint8Array) | undefined {
  try {
    const gypBuild = require('node-gyp-build') as (dir: string) => KeccakStateCtor;
    const dir = require.resolve('keccak/package.json').replace(/package\.json$/, '');
    const KeccakState = gypBuild(dir);
    const capacity = bytes * 16;
    // One sponge, initialised again per message: hashing is synchronous, so calls never overlap, and
    // a new native object per hash cost as much as the permutation itself (~2× measured here).
    const s = new KeccakState();
    return (msg: Uint8Array): Uint8Array => {
      s.initialize(1600 - capacity, capacity);
      s.absorb(msg);
      s.absorbLastFewBits(0x01);
      const out = s.squeeze(bytes);
      return new Uint8Array(out.buffer, out.byteOffset, bytes);
    };
  } catch {
    return undefined;
  }
}

/** Keccak-256 on the WebAssembly module of keccakWasm.ts (one call per hash; 2–4× the native binding). */
export const keccak256: (msg: Uint8Array) => Uint8Array = wasmKeccak256();

/** Keccak-512 (Ethash cache and dataset items). */
export const keccak512: (msg: Uint8Array) => Uint8Array =
  loadNativeKeccak(64) ?? ((msg: Uint8Array) => keccak_512(msg));

export function sha256(msg: Uint8Array): Uint8Array {
  const out = createHash('sha256').update(msg).digest();
  return new Uint8Array(out.buffer, out.byteOffset, 32);
}
void nobleSha256;

interface Secp256k1Native {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(key: Uint8Array, compressed?: boolean): Uint8Array;
}
const secp = require('secp256k1') as Secp256k1Native;

/** Recovers the uncompressed 65-byte public key (with 0x04 prefix). */
export function ecdsaRecover(sig: Uint8Array, recId: number, hash: Uint8Array): Uint8Array {
  return secp.ecdsaRecover(sig, recId, hash, false);
}

export function ecdsaSign(
  hash: Uint8Array,
  privateKey: Uint8Array,
): { signature: Uint8Array; recid: number } {
  return secp.ecdsaSign(hash, privateKey);
}

export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  return secp.publicKeyCreate(privateKey, false);
}

/** ecrecover as the EVM precompile and tx library call it: returns the 64-byte public key. */
function ecrecover(
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
): Uint8Array {
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (2n * chainId + 35n);
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
  const sig = new Uint8Array(64);
  sig.set(r.length > 32 ? r.subarray(r.length - 32) : r, 32 - Math.min(32, r.length));
  sig.set(s.length > 32 ? s.subarray(s.length - 32) : s, 64 - Math.min(32, s.length));
  return secp.ecdsaRecover(sig, Number(recovery), msgHash, false).subarray(1);
}

let kzgInstance: KZG | undefined;

/** c-kzg behind the interface the EVM expects; the trusted setup loads once (~3 s). */
export function getKzg(): KZG {
  if (kzgInstance) return kzgInstance;
  const ckzg = require('c-kzg') as typeof import('c-kzg');
  try {
    ckzg.loadTrustedSetup(0);
  } catch (err) {
    if (!String(err).includes('already loaded')) throw err;
  }
  const h = (s: string) => hexToBytes(s as `0x${string}`);
  kzgInstance = {
    blobToKzgCommitment: (blob) => bytesToHex(ckzg.blobToKzgCommitment(h(blob))),
    computeBlobProof: (blob, commitment) => bytesToHex(ckzg.computeBlobKzgProof(h(blob), h(commitment))),
    verifyProof: (commitment, z, y, proof) => ckzg.verifyKzgProof(h(commitment), h(z), h(y), h(proof)),
    verifyBlobProofBatch: (blobs, commitments, proofs) =>
      ckzg.verifyBlobKzgProofBatch(blobs.map(h), commitments.map(h), proofs.map(h)),
    computeCells: (blob) => ckzg.computeCells(h(blob)).map((c) => bytesToHex(c)),
    computeCellsAndProofs: (blob) => {
      const [cells, proofs] = ckzg.computeCellsAndKzgProofs(h(blob));
      return [cells.map((c) => bytesToHex(c)), proofs.map((p) => bytesToHex(p))];
    },
    recoverCellsAndProofs: (indices, cells) => {
      const [c, p] = ckzg.recoverCellsAndKzgProofs(indices, cells.map(h));
      return [c.map((x) => bytesToHex(x)), p.map((x) => bytesToHex(x))];
    },
    verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
      ckzg.verifyCellKzgProofBatch(commitments.map(h), indices, cells.map(h), proofs.map(h)),
  };
  return kzgInstance;
}

/**
 * The KZG interface with the trusted setup loaded on first use: chains without blob transactions (the
 * dev network, pre-Cancun genesis files) never pay the seconds it takes, nor does a node's start-up.
 */
const lazyKzg: KZG = {
  blobToKzgCommitment: (blob) => getKzg().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => getKzg().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => getKzg().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) =>
    getKzg().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => getKzg().computeCells(blob),
  computeCellsAndProofs: (blob) => getKzg().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => getKzg().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
    getKzg().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
};

export function customCrypto(): CustomCrypto {
  return { keccak256, sha256, ecrecover, ecdsaRecover, kzg: lazyKzg };
}
