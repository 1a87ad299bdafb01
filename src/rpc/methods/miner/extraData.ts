/** miner_getExtraData / miner_setExtraData: the extraData of mined blocks (at most 32 bytes). */
import { INVALID_EXTRA_DATA_PARAMS, RpcError } from '../../errors.js';
import { bytes } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';
import { requireMiner } from './shared.js';

const MAX_EXTRA_DATA = 32;

export const minerGetExtraData: RpcMethod = {
  name: 'miner_getExtraData',
  group: 'MINER',
  handler: (_params, { services }) => bytes(requireMiner(services).extraData()),
};

export const minerSetExtraData: RpcMethod = {
  name: 'miner_setExtraData',
  group: 'MINER',
  handler: (params, { services }) => {
    const miner = requireMiner(services);
    const raw = params[0];
    if (typeof raw !== 'string') throw new RpcError(INVALID_EXTRA_DATA_PARAMS);
    const digits = raw.startsWith('0x') || raw.startsWith('0X') ? raw.slice(2) : raw;
    if (!/^[0-9a-fA-F]*$/.test(digits))
      throw new RpcError(INVALID_EXTRA_DATA_PARAMS, `Illegal character in hex string: ${raw}`);
    const even = digits.length % 2 === 1 ? `0${digits}` : digits;
    if (even.length / 2 > MAX_EXTRA_DATA)
      throw new RpcError(
        INVALID_EXTRA_DATA_PARAMS,
        `Hex value is too large: expected at most ${MAX_EXTRA_DATA} bytes but got ${even.length / 2}`,
      );
    miner.setExtraData(new Uint8Array(Buffer.from(even, 'hex')));
    return true;
  },
};
