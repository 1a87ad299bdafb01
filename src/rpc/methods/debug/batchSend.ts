/** debug_batchSendRawTransaction: each entry added independently; `{index, success, errorMessage?}`. */
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

export const debugBatchSendRawTransaction = defineMethod({
  name: 'debug_batchSendRawTransaction',
  group: 'DEBUG',
  params: [entries],
  async handler([raws], { services }) {
    const out: Array<{ index: number; success: boolean; errorMessage?: string }> = [];
    for (let index = 0; index < raws.length; index++) {
      try {
        await submitRaw(services, rawTransaction(raws[index]));
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
});
