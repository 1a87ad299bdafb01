/** miner_getExtraData / miner_setExtraData: the extraData of mined blocks (at most 32 bytes). */
import { INVALID_EXTRA_DATA_PARAMS, RpcError } from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { defineMethod, type ParamSpec } from '../define.js';
import { requireMiner } from './shared.js';

const MAX_EXTRA_DATA = 32;

export const minerGetExtraData = defineMethod({
  name: 'miner_getExtraData',
  group: 'MINER',
  params: [],
  handler: (_args, { services }) => bytes(requireMiner(services).extraData()),
});

/** At most 32 bytes of hex (`0x` optional, odd length left-padded); the parse failure goes into `data`. */
const extraData: ParamSpec<Uint8Array> = {
  decode(params, index) {
    const raw = params[index];
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
    return new Uint8Array(Buffer.from(even, 'hex'));
  },
};

export const minerSetExtraData = defineMethod({
  name: 'miner_setExtraData',
  group: 'MINER',
  params: [extraData],
  requires: ({ services }) => requireMiner(services),
  handler: ([data], { services }) => {
    requireMiner(services).setExtraData(data);
    return true;
  },
});
