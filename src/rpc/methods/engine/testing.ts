/**
 * testing_buildBlockV1 (TESTING group): builds a block on any stored parent from payload attributes and
 * the named transactions (null: from the pool), without importing it, and answers it as getPayload
 * does. Errors as Besu's: a missing parent, missing attributes, a zero timestamp, a missing fee
 * recipient are -32602 with Besu's sentence; a transaction that does not decode is -32602 `Invalid
 * transaction params`; a named transaction that cannot run on the parent's state fails the build with
 * -32000 and the reason (as the cross-client cases expect), leaving the chain as it was.
 */
import { Address, bytesToHex } from '@ethereumjs/util';
import type { PayloadAttributes } from '../../../consensus/merge/engineService.js';
import { decodeTransaction } from '../../../consensus/merge/engineService.js';
import { INVALID_PARAMS, INVALID_TRANSACTION_PARAMS, RpcError } from '../../errors.js';
import { formatGetPayload } from '../../format/engine.js';
import { hexBytes, hexQuantity, withdrawalList } from '../../params/engine.js';
import type { RpcMethod } from '../types.js';
import { engineOf } from './service.js';

/** The attributes' own checks, after the parent was found (Besu's order). */
function attributes(o: Record<string, unknown>): PayloadAttributes {
  const timestamp = hexQuantity(o.timestamp);
  if (timestamp === undefined || timestamp === 0n)
    throw new RpcError(INVALID_PARAMS, 'Missing or invalid timestamp field');
  const prevRandao = hexBytes(o.prevRandao, 32);
  if (!prevRandao) throw new RpcError(INVALID_PARAMS, 'Missing prevRandao field');
  const recipient = hexBytes(o.suggestedFeeRecipient, 20);
  if (!recipient) throw new RpcError(INVALID_PARAMS, 'Missing suggestedFeeRecipient field');
  const root = o.parentBeaconBlockRoot;
  return {
    timestamp,
    prevRandao,
    suggestedFeeRecipient: new Address(recipient),
    withdrawals: withdrawalList(o.withdrawals, INVALID_PARAMS) ?? [],
    parentBeaconBlockRoot: root === undefined || root === null ? undefined : hexBytes(root, 32),
  };
}

export const testingBuildBlockV1: RpcMethod = {
  name: 'testing_buildBlockV1',
  group: 'TESTING',
  async handler(params, ctx) {
    const engine = engineOf(ctx);
    // Parameter shapes first (plain -32602), then the parent, the attributes, the transactions.
    const parentHash = hexBytes(params[0], 32);
    if (!parentHash) throw new RpcError(INVALID_PARAMS);
    const rawAttrs = params[1];
    if (typeof rawAttrs !== 'object' || rawAttrs === null || Array.isArray(rawAttrs))
      throw new RpcError(INVALID_PARAMS);
    const rawTxs = params[2];
    if (rawTxs !== undefined && rawTxs !== null && !Array.isArray(rawTxs)) throw new RpcError(INVALID_PARAMS);
    let extraData: Uint8Array | undefined;
    if (params[3] !== undefined && params[3] !== null) {
      extraData = hexBytes(params[3]);
      if (!extraData) throw new RpcError(INVALID_PARAMS);
    }
    const parent = ctx.services.chain.getHeader(parentHash);
    if (!parent) throw new RpcError(INVALID_PARAMS, `Parent block not found: ${bytesToHex(parentHash)}`);
    const attrs = attributes(rawAttrs as Record<string, unknown>);
    let txs: ReturnType<typeof decodeTransaction>[] | undefined;
    if (Array.isArray(rawTxs)) {
      const common = ctx.services.chain.common.copy();
      common.setHardforkBy({ blockNumber: parent.number + 1n, timestamp: attrs.timestamp });
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
    const built = await engine.buildForTesting(parentHash, attrs, txs, extraData ?? new Uint8Array());
    const common = built.block.common;
    const version = common.gteHardfork('prague') ? 4 : common.gteHardfork('cancun') ? 3 : 2;
    return formatGetPayload(built, version);
  },
};
