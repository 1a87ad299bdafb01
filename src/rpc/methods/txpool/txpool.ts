/**
 * TXPOOL group: Besu's txpool_besuTransactions, txpool_besuStatistics, txpool_besuPendingTransactions,
 * and the geth-style txpool_status, txpool_content, txpool_contentFrom.
 */
import { toChecksumAddress } from '@ethereumjs/util';
import type { PooledTx } from '../../../txpool/pool.js';
import {
  INVALID_ADDRESS_PARAMS,
  INVALID_PARAMS,
  INVALID_TRANSACTION_LIMIT_PARAMS,
  RpcError,
} from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { formatTransaction, type TxJson } from '../../format/transaction.js';
import { address, uint64 } from '../../params.js';
import { defineMethod, optional, type ParamSpec, required } from '../define.js';
import { requirePool } from '../eth/sendRawTransaction.js';
import type { RpcMethod } from '../types.js';

/** java.time.Instant#toString: milliseconds only when not zero. */
export function instantString(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function pendingJson(t: PooledTx): TxJson {
  return formatTransaction(t.tx, t.sender);
}

export const txpoolBesuTransactions = defineMethod({
  name: 'txpool_besuTransactions',
  group: 'TXPOOL',
  params: [],
  handler(_args, { services }) {
    return requirePool(services)
      .all()
      .map((t) => ({
        hash: t.hashHex,
        isReceivedFromLocalSource: t.local,
        addedToPoolAt: instantString(t.addedAt),
      }));
  },
});

export const txpoolBesuStatistics = defineMethod({
  name: 'txpool_besuStatistics',
  group: 'TXPOOL',
  params: [],
  handler(_args, { services }) {
    const pool = requirePool(services);
    let local = 0;
    for (const t of pool.all()) if (t.local) local++;
    return { maxSize: pool.options.maxSize, localCount: local, remoteCount: pool.size - local };
  },
});

type Op = 'eq' | 'gt' | 'lt';
type Predicate = (t: PooledTx) => boolean;

function parsePendingFilter(value: unknown): Predicate[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) throw new RpcError(INVALID_PARAMS);
  const preds: Predicate[] = [];
  for (const [field, cond] of Object.entries(value as Record<string, unknown>)) {
    if (typeof cond !== 'object' || cond === null) throw new RpcError(INVALID_PARAMS);
    const entries = Object.entries(cond as Record<string, unknown>);
    if (entries.length !== 1) throw new RpcError(INVALID_PARAMS);
    const [op, raw] = entries[0] as [string, unknown];
    if (field === 'from' || field === 'to') {
      if (field === 'to' && op === 'action') {
        preds.push((t) => t.tx.to === undefined);
        continue;
      }
      if (op !== 'eq') throw new RpcError(INVALID_PARAMS);
      const want = address(raw, INVALID_PARAMS).toLowerCase();
      preds.push(field === 'from' ? (t) => t.senderHex === want : (t) => t.tx.to?.toString() === want);
      continue;
    }
    if (!['gas', 'gasPrice', 'value', 'nonce'].includes(field) || !['eq', 'gt', 'lt'].includes(op))
      throw new RpcError(INVALID_PARAMS);
    const n = uint64(raw, INVALID_PARAMS);
    const get = (t: PooledTx): bigint =>
      field === 'gas'
        ? t.tx.gasLimit
        : field === 'value'
          ? t.tx.value
          : field === 'nonce'
            ? t.tx.nonce
            : t.tx.type >= 2
              ? (t.tx as unknown as { maxFeePerGas: bigint }).maxFeePerGas
              : (t.tx as unknown as { gasPrice: bigint }).gasPrice;
    const cmp = op as Op;
    preds.push((t) => (cmp === 'eq' ? get(t) === n : cmp === 'gt' ? get(t) > n : get(t) < n));
  }
  return preds;
}

/** The `{field: {op: value}}` filter of txpool_besuPendingTransactions; anything malformed is `Invalid params`. */
const pendingFilter: ParamSpec<Predicate[]> = {
  decode: (params, index) => parsePendingFilter(params[index]),
};

export const txpoolBesuPendingTransactions = defineMethod({
  name: 'txpool_besuPendingTransactions',
  group: 'TXPOOL',
  params: [optional(uint64, INVALID_TRANSACTION_LIMIT_PARAMS), pendingFilter],
  requires: ({ services }) => requirePool(services),
  handler([limit, preds], { services }) {
    const pool = requirePool(services);
    const out: TxJson[] = [];
    for (const t of pool.all()) {
      if (limit !== undefined && BigInt(out.length) >= limit) break;
      if (preds.every((p) => p(t))) out.push(pendingJson(t));
    }
    return out;
  },
});

export const txpoolStatus = defineMethod({
  name: 'txpool_status',
  group: 'TXPOOL',
  params: [],
  handler(_args, { services }) {
    const { pending, queued } = requirePool(services).content();
    let p = 0;
    let q = 0;
    for (const l of pending.values()) p += l.length;
    for (const l of queued.values()) q += l.length;
    return { pending: quantity(p), queued: quantity(q) };
  },
});

function byNonce(list: readonly PooledTx[] | undefined): Record<string, TxJson> {
  const out: Record<string, TxJson> = {};
  for (const t of list ?? []) out[t.tx.nonce.toString()] = pendingJson(t);
  return out;
}

function bySender(map: Map<string, PooledTx[]>): Record<string, Record<string, TxJson>> {
  const out: Record<string, Record<string, TxJson>> = {};
  for (const [sender, list] of map) out[toChecksumAddress(sender as `0x${string}`)] = byNonce(list);
  return out;
}

export const txpoolContent = defineMethod({
  name: 'txpool_content',
  group: 'TXPOOL',
  params: [],
  handler(_args, { services }) {
    const { pending, queued } = requirePool(services).content();
    return { pending: bySender(pending), queued: bySender(queued) };
  },
});

export const txpoolContentFrom = defineMethod({
  name: 'txpool_contentFrom',
  group: 'TXPOOL',
  params: [required(address, INVALID_ADDRESS_PARAMS)],
  handler([who], { services }) {
    const { pending, queued } = requirePool(services).content();
    return { pending: byNonce(pending.get(who)), queued: byNonce(queued.get(who)) };
  },
});

export const txpoolMethods: RpcMethod[] = [
  txpoolBesuTransactions,
  txpoolBesuStatistics,
  txpoolBesuPendingTransactions,
  txpoolStatus,
  txpoolContent,
  txpoolContentFrom,
];
