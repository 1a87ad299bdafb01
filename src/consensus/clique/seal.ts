/**
 * Clique seals: the seal hash is keccak-256 of the header RLP with the 65-byte seal cut from
 * extraData; the seal is a secp256k1 signature of it (r ‖ s ‖ recovery id 0/1). Signing and recovery
 * go through the native secp256k1 binding.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex } from '@ethereumjs/util';
import { ecdsaRecover, ecdsaSign, keccak256, publicKeyOf } from '../../crypto/index.js';
import { EXTRA_SEAL } from './extraData.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export function sealHash(header: BlockHeader): Uint8Array {
  const raw = header.raw();
  raw[12] = header.extraData.subarray(0, header.extraData.length - EXTRA_SEAL);
  return keccak256(RLP.encode(raw));
}

/** The 65-byte seal of `hash` by `privateKey`. */
export function signSeal(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { signature, recid } = ecdsaSign(hash, privateKey);
  const seal = new Uint8Array(EXTRA_SEAL);
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

/**
 * The address that sealed `header`. A seal of 65 zero bytes (the genesis block) has no signer: the
 * zero address, as Besu reports the genesis proposer. Throws when the seal is not a valid signature.
 */
export function recoverSigner(header: BlockHeader): string {
  const extra = header.extraData;
  if (extra.length < EXTRA_SEAL) throw new Error('extraData has no room for a seal');
  const seal = extra.subarray(extra.length - EXTRA_SEAL);
  if (seal.every((b) => b === 0)) return ZERO_ADDRESS;
  const recid = seal[64] as number;
  if (recid > 1) throw new Error(`seal recovery id ${recid} is not 0 or 1`);
  return addressOfPublicKey(ecdsaRecover(seal.subarray(0, 64), recid, sealHash(header)));
}
