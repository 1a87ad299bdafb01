/**
 * Block sender recovery on the worker thread: every plainly valid signature gets the public key the
 * library itself recovers (a tampered one included), never another.
 */
import { createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { customCrypto } from '../../src/crypto/index.js';
import { SenderRecovery } from '../../src/execution/senderRecovery.js';

const cached = (tx: TypedTransaction) =>
  (tx as unknown as { cache: { senderPubKey?: Uint8Array } }).cache.senderPubKey;

describe('SenderRecovery', () => {
  it('caches exactly the keys the library recovers', async () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun, customCrypto: customCrypto() });
    const keys = [1, 2, 3, 4, 5].map((i) => hexToBytes(`0x${i.toString(16).padStart(64, '0')}`));
    const txs: TypedTransaction[] = keys.map((k, i) =>
      i % 2 === 0
        ? createFeeMarket1559Tx(
            { nonce: i, gasLimit: 21000, maxFeePerGas: 10, to: `0x${'11'.repeat(20)}`, chainId: 1 },
            { common },
          ).sign(k)
        : createLegacyTx(
            { nonce: i, gasLimit: 21000, gasPrice: 10, to: `0x${'22'.repeat(20)}` },
            { common },
          ).sign(k),
    );
    // A tampered r: whatever key (if any) it recovers, the cache must hold the library's own answer.
    const good = txs[4];
    txs[4] = createFeeMarket1559Tx({ ...good.toJSON(), r: (good.r as bigint) + 1n } as never, { common });
    const block = createBlock({ header: { number: 1 }, transactions: txs }, { common });
    const expected = block.transactions.map((tx) => {
      try {
        return bytesToHex(copyOf(tx).getSenderPublicKey());
      } catch {
        return undefined;
      }
    });

    const recovery = new SenderRecovery();
    try {
      await recovery.prefetch(block);
    } finally {
      await recovery.close();
    }
    for (let i = 0; i < 5; i++) {
      const key = cached(block.transactions[i]);
      expect(key === undefined ? undefined : bytesToHex(key)).toBe(expected[i]);
    }
    expect(expected.slice(0, 4).every((k) => k !== undefined)).toBe(true);
  });
});

/** A fresh decode of `tx`, so that the library recovers its key without any cache. */
function copyOf(tx: TypedTransaction): TypedTransaction {
  return tx.type === 0
    ? createLegacyTx(tx.toJSON() as never, { common: tx.common })
    : createFeeMarket1559Tx(tx.toJSON() as never, { common: tx.common });
}
