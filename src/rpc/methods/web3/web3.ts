/** web3_clientVersion and web3_sha3 (Keccak-256 of the given bytes). */
import { keccak256 } from '../../../crypto/index.js';
import { INVALID_PARAMS, RpcError } from '../../errors.js';
import { bytes, hexToBytes } from '../../format/hex.js';
import { requireParamCount } from '../../params.js';
import type { RpcMethod } from '../types.js';

export const web3ClientVersion: RpcMethod = {
  name: 'web3_clientVersion',
  group: 'WEB3',
  handler: (_params, { services }) => services.clientVersion,
};

export const web3Sha3: RpcMethod = {
  name: 'web3_sha3',
  group: 'WEB3',
  handler(params) {
    requireParamCount(params, 1);
    const value = params[0];
    if (typeof value !== 'string' || (value.length > 0 && !value.startsWith('0x')))
      throw new RpcError(INVALID_PARAMS);
    let data: Uint8Array;
    try {
      data = hexToBytes(value);
    } catch {
      throw new RpcError(INVALID_PARAMS);
    }
    return bytes(keccak256(data));
  },
};

export const web3Methods: RpcMethod[] = [web3ClientVersion, web3Sha3];
