/**
 * eth_sendRawTransaction: decode, validate and add to the pool; the answer is the transaction hash.
 * Pool rejections carry Besu's bare messages (no detail suffix).
 */
import type { TxPool } from '../../../txpool/pool.js';
import * as E from '../../errors.js';
import { RpcError } from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { requireParamCount } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

export function requirePool(services: Services): TxPool {
  if (!services.txPool) throw new RpcError(E.TX_POOL_DISABLED);
  return services.txPool;
}

const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;

/** Adds one raw transaction (`0x…`); returns its hash or throws. */
export async function submitRaw(services: Services, raw: unknown): Promise<string> {
  if (typeof raw !== 'string' || !HEX_DATA.test(raw)) throw new RpcError(E.INVALID_PARAMS);
  const pool = requirePool(services);
  // A rejection throws `TxPoolError`, answered with Besu's bare message by rpc/errors.ts.
  const entry = await pool.addRaw(Buffer.from(raw.slice(2), 'hex'), true);
  return bytes(entry.hash);
}

export const ethSendRawTransaction: RpcMethod = {
  name: 'eth_sendRawTransaction',
  group: 'ETH',
  handler(params, { services }) {
    requireParamCount(params, 1);
    return submitRaw(services, params[0]);
  },
};
