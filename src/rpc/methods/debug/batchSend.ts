/**
 * debug_batchSendRawTransaction: each entry added independently; `{index, success, errorMessage?}`.
 * An entry's message is Besu's: the pool's rejection by its reason name (`NONCE_TOO_LOW` …), or the
 * decoding failure's text (`Invalid raw transaction hex`, or the legacy signature's unsupported `v`).
 */
import { RLP } from '@ethereumjs/rlp';
import { TxPoolError, type TxRejection } from '../../../txpool/pool.js';
import { INVALID_PARAMS, RpcError, toErrorObject } from '../../errors.js';
import { defineMethod, type ParamSpec } from '../define.js';
import { rawTransaction, submitRaw } from '../eth/sendRawTransaction.js';

/** Every parameter is one raw transaction; at least one. Each is decoded on its own, when its turn comes. */
const entries: ParamSpec<readonly unknown[]> = {
  decode(params) {
    if (params.length === 0) throw new RpcError(INVALID_PARAMS);
    return params;
  },
};

const INVALID_HEX = 'Invalid raw transaction hex';

/** Besu's TransactionInvalidReason names for the pool's rejections. */
const REASON_NAMES: Partial<Record<TxRejection, string>> = {
  INVALID_SIGNATURE: 'INVALID_SIGNATURE',
  WRONG_CHAIN_ID: 'WRONG_CHAIN_ID',
  REPLAY_PROTECTED_SIGNATURE_REQUIRED: 'REPLAY_PROTECTED_SIGNATURE_REQUIRED',
  TYPE_NOT_SUPPORTED: 'INVALID_TRANSACTION_FORMAT',
  NONCE_TOO_LOW: 'NONCE_TOO_LOW',
  NONCE_TOO_FAR_IN_FUTURE: 'NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER',
  INTRINSIC_GAS: 'INTRINSIC_GAS_EXCEEDS_GAS_LIMIT',
  EXCEEDS_BLOCK_GAS_LIMIT: 'EXCEEDS_BLOCK_GAS_LIMIT',
  UPFRONT_COST_EXCEEDS_BALANCE: 'UPFRONT_COST_EXCEEDS_BALANCE',
  GAS_PRICE_TOO_LOW: 'GAS_PRICE_TOO_LOW',
  GAS_PRICE_BELOW_BASE_FEE: 'GAS_PRICE_BELOW_CURRENT_BASE_FEE',
  BLOB_GAS_PRICE_BELOW_BLOB_BASE_FEE: 'BLOB_GAS_PRICE_BELOW_CURRENT_BLOB_BASE_FEE',
  REPLACEMENT_UNDERPRICED: 'TRANSACTION_REPLACEMENT_UNDERPRICED',
  KNOWN: 'TRANSACTION_ALREADY_KNOWN',
  FEE_CAP_EXCEEDED: 'TX_FEECAP_EXCEEDED',
  MAX_PRIORITY_FEE_EXCEEDS_MAX_FEE: 'MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS',
  TOTAL_BLOB_GAS_TOO_HIGH: 'TOTAL_BLOB_GAS_TOO_HIGH',
};

/** A legacy transaction whose `v` is neither 27/28 nor an EIP-155 value: Besu's decoder names it. */
function unsupportedV(raw: Uint8Array): string | undefined {
  if (raw.length === 0 || raw[0] < 0xc0) return undefined;
  try {
    const fields = RLP.decode(raw) as Uint8Array[];
    if (!Array.isArray(fields) || fields.length !== 9) return undefined;
    let v = 0n;
    for (const b of fields[6] as Uint8Array) v = (v << 8n) | BigInt(b);
    if (v === 27n || v === 28n || v >= 35n) return undefined;
    return `An unsupported encoded \`v\` value of ${v} was found`;
  } catch {
    return undefined;
  }
}

function entryMessage(err: unknown, raw: Uint8Array | undefined): string {
  if (raw === undefined) return INVALID_HEX;
  if (err instanceof TxPoolError) {
    if (err.reason === 'DECODE') return unsupportedV(raw) ?? INVALID_HEX;
    const name = REASON_NAMES[err.reason];
    if (name !== undefined) return name;
  }
  return toErrorObject(err, 'debug_batchSendRawTransaction').message;
}

export const debugBatchSendRawTransaction = defineMethod({
  name: 'debug_batchSendRawTransaction',
  group: 'DEBUG',
  params: [entries],
  async handler([raws], { services }) {
    const out: Array<{ index: number; success: boolean; errorMessage?: string }> = [];
    for (let index = 0; index < raws.length; index++) {
      let raw: Uint8Array | undefined;
      try {
        raw = rawTransaction(raws[index]);
        await submitRaw(services, raw);
        out.push({ index, success: true });
      } catch (err) {
        out.push({ index, success: false, errorMessage: entryMessage(err, raw) });
      }
    }
    return out;
  },
});
