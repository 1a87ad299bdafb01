/**
 * eth_sendRawTransaction: decode, validate and add to the pool; the answer is the transaction hash.
 * Pool rejections (`TxPoolError`) carry Besu's bare messages (no detail suffix), mapped in rpc/errors.ts.
 */
import type { TxPool } from '../../../txpool/pool.js';
import * as E from '../../errors.js';
import { RpcError } from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { type Decoder, decoder } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, required } from '../define.js';

export function requirePool(services: Services): TxPool {
  if (!services.txPool) throw new RpcError(E.TX_POOL_DISABLED);
  return services.txPool;
}

const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;

/** A signed transaction: `0x` and an even number of hex digits. */
export const rawTransaction: Decoder<Uint8Array> = decoder(E.INVALID_PARAMS, (value) =>
  typeof value === 'string' && HEX_DATA.test(value) ? Buffer.from(value.slice(2), 'hex') : undefined,
);

/** Adds one decoded raw transaction to the pool; returns its hash or throws. */
export async function submitRaw(services: Services, raw: Uint8Array): Promise<string> {
  const entry = await requirePool(services).addRaw(raw, true);
  return bytes(entry.hash);
}

export const ethSendRawTransaction = defineMethod({
  name: 'eth_sendRawTransaction',
  group: 'ETH',
  arity: 1,
  params: [required(rawTransaction)],
  handler: ([raw], { services }) => submitRaw(services, raw),
});
