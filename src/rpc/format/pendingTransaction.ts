/**
 * The transaction detail a `newPendingTransactions` subscription with `{includeTransactions: true}`
 * receives (Besu's `PendingTransactionDetailResult`): a smaller object than a full transaction, in its
 * own member order. `gasPrice` is null for fee-market transactions and `to` for contract creations
 * (both written as null, not left out); `yParity` exists only for typed transactions and `v` only for
 * legacy, access-list and EIP-1559 ones.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import { bytes, quantity } from './hex.js';
import type { TxJson } from './transaction.js';

export function formatPendingTransactionDetail(
  tx: TypedTransaction,
  sender: Address,
  hashHex?: string,
): TxJson {
  const type = tx.type;
  const v = tx.v ?? 0n;
  const out: TxJson = {
    from: bytes(sender.bytes),
    gas: quantity(tx.gasLimit),
    gasPrice: type < 2 ? quantity((tx as unknown as { gasPrice: bigint }).gasPrice) : null,
    hash: hashHex ?? bytes(tx.hash()),
    input: bytes(tx.data),
    nonce: quantity(tx.nonce),
    to: tx.to ? bytes(tx.to.bytes) : null,
    type: quantity(type),
    value: quantity(tx.value),
  };
  if (type !== 0) out.yParity = quantity(v);
  if (type <= 2) out.v = quantity(v);
  out.r = quantity(tx.r ?? 0n);
  out.s = quantity(tx.s ?? 0n);
  return out;
}
