/**
 * BFT hashes and committed seals. The block hash is keccak-256 of the header RLP with extraData
 * re-encoded without seals and round (the genesis block keeps its extraData as written), so a block's
 * hash is fixed before the validators seal it and does not change with the round it was agreed in. A
 * committed seal is a secp256k1 signature (r ‖ s ‖ recovery id) over keccak-256 of the header RLP
 * with extraData re-encoded without seals but with the round.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { registerHeaderHasher } from '../../chain/headerHash.js';
import { ecdsaRecover, ecdsaSign, keccak256, publicKeyOf } from '../../crypto/index.js';
import {
  type BftExtraData,
  type BftVariant,
  decodeExtraData,
  type ExtraDataForm,
  encodeExtraData,
  SEAL_LENGTH,
} from './extraData.js';

const EXTRA_DATA_INDEX = 12;
const NUMBER_INDEX = 8;
/** secp256k1 group order: r and s of a seal lie in [1, n). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function isGenesis(raw: Uint8Array[]): boolean {
  const n = raw[NUMBER_INDEX];
  return n === undefined || n.every((b) => b === 0);
}

/** keccak-256 of the header RLP with extraData in the given form. */
export function hashWithExtraForm(
  variant: BftVariant,
  raw: Uint8Array[],
  form: ExtraDataForm,
  extra?: BftExtraData,
): Uint8Array {
  if (isGenesis(raw)) return keccak256(RLP.encode(raw));
  const decoded = extra ?? decodeExtraData(variant, raw[EXTRA_DATA_INDEX] as Uint8Array);
  const copy = raw.slice();
  copy[EXTRA_DATA_INDEX] = encodeExtraData(variant, decoded, form);
  return keccak256(RLP.encode(copy));
}

/**
 * The block hash of a BFT header given as its RLP fields. Headers whose extraData is not a BFT
 * structure (rejected at validation anyway) hash as a whole, so that they can still be named.
 */
export function bftBlockHash(variant: BftVariant, raw: Uint8Array[]): Uint8Array {
  try {
    return hashWithExtraForm(variant, raw, 'noSealsNoRound');
  } catch {
    return keccak256(RLP.encode(raw));
  }
}

/** The digest committed seals sign: header without seals, round included. */
export function commitSealDigest(variant: BftVariant, header: BlockHeader, extra?: BftExtraData): Uint8Array {
  return hashWithExtraForm(variant, header.raw(), 'noSeals', extra);
}

/** A 65-byte committed seal of `digest` by `privateKey`. */
export function signCommitSeal(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { signature, recid } = ecdsaSign(digest, privateKey);
  const seal = new Uint8Array(SEAL_LENGTH);
  seal.set(signature, 0);
  seal[64] = recid;
  return seal;
}

/** Lowercase `0x…` address of an uncompressed (65-byte) or raw (64-byte) public key. */
export function addressOfPublicKey(publicKey: Uint8Array): string {
  const raw = publicKey.length === 65 ? publicKey.subarray(1) : publicKey;
  return bytesToHex(keccak256(raw).subarray(12));
}

export function addressOfPrivateKey(privateKey: Uint8Array): string {
  return addressOfPublicKey(publicKeyOf(privateKey));
}

/** The signer of a 65-byte seal over `digest`; throws when the seal is not a valid signature. */
export function recoverSealer(seal: Uint8Array, digest: Uint8Array): string {
  if (seal.length !== SEAL_LENGTH) throw new Error(`seal is ${seal.length} bytes, not 65`);
  const recid = seal[64] as number;
  if (recid > 1) throw new Error(`seal recovery id ${recid} is not 0 or 1`);
  const r = BigInt(bytesToHex(seal.subarray(0, 32)));
  const s = BigInt(bytesToHex(seal.subarray(32, 64)));
  if (r === 0n || r >= SECP256K1_N || s === 0n || s >= SECP256K1_N)
    throw new Error('seal r or s is out of range');
  return addressOfPublicKey(ecdsaRecover(seal.subarray(0, 64), recid, digest));
}

/** The addresses whose committed seals `header` carries, in order; throws on an unrecoverable seal. */
export function recoverCommitters(variant: BftVariant, header: BlockHeader, extra?: BftExtraData): string[] {
  const data = extra ?? decodeExtraData(variant, header.extraData);
  const digest = commitSealDigest(variant, header, data);
  return data.seals.map((seal) => recoverSealer(seal, digest));
}

registerHeaderHasher('ibft2', (raw) => bftBlockHash('ibft2', raw));
registerHeaderHasher('qbft', (raw) => bftBlockHash('qbft', raw));
