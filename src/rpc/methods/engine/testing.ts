/**
 * testing_buildBlockV1 (TESTING group): builds a block on any stored parent from payload attributes and
 * the named transactions (null: from the pool), without importing it, and answers it as getPayload
 * does. Errors as Besu's: a missing parent, missing attributes, a zero timestamp, a missing fee
 * recipient are -32602 with Besu's sentence; a transaction that does not decode is -32602 `Invalid
 * transaction params`.
 */
import { Address } from '@ethereumjs/util';
import type { PayloadAttributes } from '../../../consensus/merge/engineService.js';
import { decodeTransaction } from '../../../consensus/merge/engineService.js';
import { INVALID_PARAMS, INVALID_TRANSACTION_PARAMS, RpcError } from '../../errors.js';
import { formatGetPayload } from '../../format/engine.js';
import { hexBytes, hexQuantity, withdrawalList } from '../../params/engine.js';
import type { RpcMethod } from '../types.js';
import { engineOf } from './service.js';

function attributes(value: unknown): PayloadAttributes {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RpcError(INVALID_PARAMS);
  const o = value as Record<string, unknown>;
  const timestamp = hexQuantity(o.timestamp);
  if (timestamp === undefined || timestamp === 0n)
    throw new RpcError(INVALID_PARAMS, 'Missing or invalid timestamp field');
  const prevRandao = hexBytes(o.prevRandao, 32);
  if (!prevRandao) throw new RpcError(INVALID_PARAMS, 'Missing or invalid prevRandao field');
  const recipient = hexBytes(o.suggestedFeeRecipient, 20);
  if (!recipient) throw new RpcError(INVALID_PARAMS, 'Missing suggestedFeeRecipient field');
  const root = o.parentBeaconBlockRoot;
  return {
    timestamp,
    prevRandao,
    suggestedFeeRecipient: new Address(recipient),
    withdrawals: withdrawalList(o.withdrawals, INVALID_PARAMS),
    parentBeaconBlockRoot: root === undefined || root === null ? undefined : hexBytes(root, 32),
  };
}

export const testingBuildBlockV1: RpcMethod = {
  name: 'testing_buildBlockV1',
  group: 'TESTING',
  async handler(params, ctx) {
    const engine = engineOf(ctx);
    const parentHash = hexBytes(params[0], 32);
    if (!parentHash) throw new RpcError(INVALID_PARAMS);
    const attrs = attributes(params[1]);
    const rawTxs = params[2];
    let txs: ReturnType<typeof decodeTransaction>[] | undefined;
    if (rawTxs !== undefined && rawTxs !== null) {
      if (!Array.isArray(rawTxs)) throw new RpcError(INVALID_TRANSACTION_PARAMS);
      const common = ctx.services.chain.common.copy();
      common.setHardforkBy({
        blockNumber: (ctx.services.chain.getHeader(parentHash)?.number ?? 0n) + 1n,
        timestamp: attrs.timestamp,
      });
      txs = rawTxs.map((raw) => {
        const bytes = hexBytes(raw);
        try {
          if (!bytes) throw new Error('not hex');
          return decodeTransaction(bytes, common);
        } catch {
          throw new RpcError(
            INVALID_TRANSACTION_PARAMS,
            'Failed to decode transaction: Invalid RLP in raw transaction hex',
          );
        }
      });
    }
    let extraData: Uint8Array | undefined;
    if (params[3] !== undefined && params[3] !== null) {
      extraData = hexBytes(params[3]);
      if (!extraData) throw new RpcError(INVALID_PARAMS);
    }
    const built = await engine.buildForTesting(parentHash, attrs, txs, extraData ?? new Uint8Array());
    const version = built.block.common.gteHardfork('prague')
      ? 4
      : built.block.common.gteHardfork('cancun')
        ? 3
        : 2;
    return formatGetPayload(built, version);
  },
};
