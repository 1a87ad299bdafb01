/**
 * eth_sendRawTransaction: decode, validate and add to the pool; the answer is the transaction hash.
 * Pool rejections carry Besu's bare messages (no detail suffix).
 */
import { type TxPool, TxPoolError, type TxRejection } from '../../../txpool/pool.js';
import * as E from '../../errors.js';
import { RpcError, type RpcErrorSpec } from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { requireParamCount } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

const REJECTIONS: Record<TxRejection, RpcErrorSpec> = {
  // Besu's spec cases answer undecodable bytes with the generic message.
  DECODE: E.INVALID_PARAMS,
  INVALID_SIGNATURE: E.INVALID_TRANSACTION_SIGNATURE,
  WRONG_CHAIN_ID: E.WRONG_CHAIN_ID,
  REPLAY_PROTECTED_SIGNATURE_REQUIRED: E.REPLAY_PROTECTED_SIGNATURE_REQUIRED,
  TYPE_NOT_SUPPORTED: E.INVALID_TRANSACTION_TYPE,
  NONCE_TOO_LOW: E.NONCE_TOO_LOW,
  NONCE_TOO_FAR_IN_FUTURE: E.NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER,
  INTRINSIC_GAS: E.INTRINSIC_GAS_EXCEEDS_LIMIT,
  EXCEEDS_BLOCK_GAS_LIMIT: E.EXCEEDS_BLOCK_GAS_LIMIT,
  UPFRONT_COST_EXCEEDS_BALANCE: E.TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE,
  GAS_PRICE_TOO_LOW: E.GAS_PRICE_TOO_LOW,
  GAS_PRICE_BELOW_BASE_FEE: E.GAS_PRICE_BELOW_CURRENT_BASE_FEE,
  BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE: E.BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE,
  REPLACEMENT_UNDERPRICED: E.ETH_SEND_TX_REPLACEMENT_UNDERPRICED,
  KNOWN: E.ETH_SEND_TX_ALREADY_KNOWN,
  FEE_CAP_EXCEEDED: E.TX_FEECAP_EXCEEDED,
  MAX_PRIORITY_FEE_EXCEEDS_MAX_FEE: E.MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS,
  BLOB_COUNT: E.INVALID_BLOB_COUNT,
  TOTAL_BLOB_GAS_TOO_HIGH: E.TOTAL_BLOB_GAS_TOO_HIGH,
  INVALID_BLOBS: E.INVALID_BLOBS,
  OVERSIZED: E.INTERNAL_ERROR,
};

export function rejectionError(reason: TxRejection): RpcErrorSpec {
  return REJECTIONS[reason];
}

export function requirePool(services: Services): TxPool {
  if (!services.txPool) throw new RpcError(E.TX_POOL_DISABLED);
  return services.txPool;
}

const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;

/** Adds one raw transaction (`0x…`); returns its hash or throws an RpcError. */
export async function submitRaw(services: Services, raw: unknown): Promise<string> {
  if (typeof raw !== 'string' || !HEX_DATA.test(raw)) throw new RpcError(E.INVALID_PARAMS);
  const pool = requirePool(services);
  try {
    const entry = await pool.addRaw(Buffer.from(raw.slice(2), 'hex'), true);
    return bytes(entry.hash);
  } catch (err) {
    if (err instanceof TxPoolError) throw new RpcError(rejectionError(err.reason));
    throw err;
  }
}

export const ethSendRawTransaction: RpcMethod = {
  name: 'eth_sendRawTransaction',
  group: 'ETH',
  handler(params, { services }) {
    requireParamCount(params, 1);
    return submitRaw(services, params[0]);
  },
};
