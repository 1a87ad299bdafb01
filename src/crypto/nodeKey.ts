/**
 * The node key, in Besu's file format so a data directory moves between Besu and Alder: the secp256k1
 * private key as `0x` + 64 lowercase hex digits. Reading takes the first line, `0x` optional.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { keccak256, publicKeyOf } from './index.js';

export class NodeKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeKeyError';
  }
}

const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function validKey(key: Uint8Array): boolean {
  const n = BigInt(`0x${Buffer.from(key).toString('hex')}`);
  return n > 0n && n < CURVE_ORDER;
}

/** Reads the key at `file`, or creates one there (mode 0600) when the file does not exist. */
export function loadOrCreateNodeKey(file: string): Uint8Array {
  if (existsSync(file)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new NodeKeyError(`Node key file ${file} cannot be read: ${(err as Error).message}`);
    }
    const line = (text.split(/\r?\n/)[0] ?? '').trim();
    const hex = line.startsWith('0x') || line.startsWith('0X') ? line.slice(2) : line;
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
      throw new NodeKeyError(`Node key file ${file} does not hold a 32-byte hex private key`);
    }
    const key = new Uint8Array(Buffer.from(hex, 'hex'));
    if (!validKey(key))
      throw new NodeKeyError(`Node key file ${file} holds an invalid secp256k1 private key`);
    return key;
  }
  let key: Uint8Array;
  do key = new Uint8Array(randomBytes(32));
  while (!validKey(key));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `0x${Buffer.from(key).toString('hex')}`, { mode: 0o600 });
  return key;
}

/** The 64-byte public key (uncompressed, without the 0x04 prefix). */
export function nodePublicKey(privateKey: Uint8Array): Uint8Array {
  return publicKeyOf(privateKey).subarray(1);
}

/** The address of the node key (`0x` + 40 lowercase hex digits), e.g. its Clique signer address. */
export function nodeAddress(privateKey: Uint8Array): string {
  return `0x${Buffer.from(keccak256(nodePublicKey(privateKey)).subarray(12)).toString('hex')}`;
}
