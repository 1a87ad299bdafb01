/** eth_mining, eth_hashrate and eth_submitHashrate. */
import { INVALID_HASH_RATE_PARAMS, INVALID_SEALER_ID_PARAMS } from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { type Decoder, decoder } from '../../params.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';

/** `0x` and an even number of hex digits, lowercased. */
const evenHex: Decoder<string> = decoder(INVALID_HASH_RATE_PARAMS, (value) =>
  typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value) && value.length % 2 === 0
    ? value.toLowerCase()
    : undefined,
);

export const ethMining = defineMethod({
  name: 'eth_mining',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => services.miner?.isMining() ?? false,
});

export const ethHashrate = defineMethod({
  name: 'eth_hashrate',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => quantity(services.miner?.hashrate() ?? 0n),
});

/** A sealer reports its rate (32-byte hex) under its own id; the rate counts in eth_hashrate. */
export const ethSubmitHashrate = defineMethod({
  name: 'eth_submitHashrate',
  group: 'ETH',
  params: [required(evenHex, INVALID_HASH_RATE_PARAMS), required(evenHex, INVALID_SEALER_ID_PARAMS)],
  handler: ([rate, id], { services }) => {
    if (!services.miner) return false;
    services.miner.submitHashrate(id, rate === '0x' ? 0n : BigInt(rate) & 0xffffffffffffffffn);
    return true;
  },
});

export const miningMethods: RpcMethod[] = [ethMining, ethHashrate, ethSubmitHashrate];
