/** debug_batchSendRawTransaction: each entry added independently; `{index, success, errorMessage?}`. */
import { INVALID_PARAMS, RpcError, toErrorObject } from '../../errors.js';
import { submitRaw } from '../eth/sendRawTransaction.js';
import type { RpcMethod } from '../types.js';

export const debugBatchSendRawTransaction: RpcMethod = {
  name: 'debug_batchSendRawTransaction',
  group: 'DEBUG',
  async handler(params, { services }) {
    if (params.length === 0) throw new RpcError(INVALID_PARAMS);
    const out: Array<{ index: number; success: boolean; errorMessage?: string }> = [];
    for (let index = 0; index < params.length; index++) {
      try {
        await submitRaw(services, params[index]);
        out.push({ index, success: true });
      } catch (err) {
        // The entry's message is the one the same failure answers alone.
        out.push({
          index,
          success: false,
          errorMessage: toErrorObject(err, 'debug_batchSendRawTransaction').message,
        });
      }
    }
    return out;
  },
};
