/** web3_clientVersion and web3_sha3 (Keccak-256 of the given bytes). */
import { keccak256 } from '../../../crypto/index.js';
import { INVALID_PARAMS } from '../../errors.js';
import { bytes, hexToBytes } from '../../format/hex.js';
import { type Decoder, decoder } from '../../params.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';

const EVEN_HEX = /^(?:0x)?(?:[0-9a-fA-F]{2})*$/;

/** web3_sha3's data: `0x`-prefixed even-length hex, or the empty string. */
const sha3Data: Decoder<Uint8Array> = decoder(INVALID_PARAMS, (value) => {
  if (typeof value !== 'string' || (value.length > 0 && !value.startsWith('0x'))) return undefined;
  return EVEN_HEX.test(value) ? hexToBytes(value) : undefined;
});

export const web3ClientVersion = defineMethod({
  name: 'web3_clientVersion',
  group: 'WEB3',
  params: [],
  handler: (_args, { services }) => services.clientVersion,
});

export const web3Sha3 = defineMethod({
  name: 'web3_sha3',
  group: 'WEB3',
  arity: 1,
  params: [required(sha3Data)],
  handler: ([data]) => bytes(keccak256(data)),
});

export const web3Methods: RpcMethod[] = [web3ClientVersion, web3Sha3];
