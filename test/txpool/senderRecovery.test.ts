/**
 * The intake's own sender recovery (signing payload from the raw bytes, batched secp256k1 recovery)
 * against the transaction library's, over every transaction shape the pool takes in.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import {
  Capability,
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  createTxFromRLP,
  type TypedTransaction,
} from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes, bytesToHex } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { SenderRecovery as ThreadedRecovery } from '../../dist/txpool/senderRecovery.js';
import { signedParts } from '../../src/chain/signedParts.js';
import { customCrypto, ecdsaSign } from '../../src/crypto/index.js';
import {
  entrySize,
  OUTPUT_ADDRESS,
  OUTPUT_HASH,
  OUTPUT_PUBLIC_KEY,
  packEntry,
  RECOVERY_OUTPUT,
  recoverBatch,
} from '../../src/txpool/recoveryWorker.js';
import { SenderRecovery } from '../../src/txpool/senderRecovery.js';

const KEY = new Uint8Array(32).fill(0x42);
const ecsign = (hash: Uint8Array, key: Uint8Array) => {
  const { signature, recid } = ecdsaSign(hash, key);
  const out = new Uint8Array(65);
  out[0] = recid;
  out.set(signature, 1);
  return out;
};
const common = (chainId: number, hardfork = Hardfork.Prague) =>
  new Common({
    chain: { ...Mainnet, chainId, name: 'test' },
    hardfork,
    customCrypto: { ...customCrypto(), ecsign },
  });

const to = `0x${'ab'.repeat(20)}`;
const longData = new Uint8Array(300).map((_, i) => i & 0xff);

function shapes(): TypedTransaction[] {
  const c = common(1337);
  const big = common(2 ** 40 + 7);
  const preEip155 = common(1, Hardfork.TangerineWhistle);
  return [
    createLegacyTx({ nonce: 0n, gasPrice: 10n, gasLimit: 21000n, to, value: 1n }, { common: preEip155 }).sign(
      KEY,
    ),
    createLegacyTx({ nonce: 1n, gasPrice: 10n, gasLimit: 21000n, to, value: 1n }, { common: c }).sign(KEY),
    createLegacyTx({ nonce: 127n, gasPrice: 0n, gasLimit: 90000n, data: longData }, { common: big }).sign(
      KEY,
    ),
    createAccessList2930Tx(
      {
        chainId: 1337n,
        nonce: 2n,
        gasPrice: 7n,
        gasLimit: 50000n,
        to,
        accessList: [{ address: to, storageKeys: [`0x${'01'.repeat(32)}`] }],
      },
      { common: c },
    ).sign(KEY),
    createFeeMarket1559Tx(
      {
        chainId: 1337n,
        nonce: 3n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 21000n,
        to,
        value: 5n,
      },
      { common: c },
    ).sign(KEY),
    createFeeMarket1559Tx(
      { chainId: 1337n, nonce: 2n ** 40n, maxFeePerGas: 1n, gasLimit: 1_000_000n, data: longData },
      { common: c },
    ).sign(KEY),
    createEOACode7702Tx(
      {
        chainId: 1337n,
        nonce: 4n,
        maxFeePerGas: 9n,
        maxPriorityFeePerGas: 2n,
        gasLimit: 100_000n,
        to,
        authorizationList: [
          {
            chainId: '0x539',
            address: to,
            nonce: '0x1',
            yParity: '0x1',
            r: `0x${'11'.repeat(32)}`,
            s: `0x${'22'.repeat(32)}`,
          },
        ],
      },
      { common: c },
    ).sign(KEY),
  ];
}

/** What the pool hands the recovery: recovery id and the chain id an EIP-155 signature covers. */
function request(tx: TypedTransaction): { recovery: number; chainId: Uint8Array } {
  const v = tx.v as bigint;
  if (v === 0n || v === 1n) return { recovery: Number(v), chainId: new Uint8Array() };
  if (tx.supports(Capability.EIP155ReplayProtection)) {
    const id = tx.common.chainId();
    return { recovery: Number(v - (2n * id + 35n)), chainId: bigIntToUnpaddedBytes(id) };
  }
  return { recovery: Number(v - 27n), chainId: new Uint8Array() };
}

describe('sender recovery of the intake', () => {
  it('hashes the signing payload and recovers the key exactly as the library does', () => {
    const txs = shapes();
    let size = 0;
    for (const tx of txs) size += entrySize(tx.serialize().length, request(tx).chainId.length);
    const input = new Uint8Array(size);
    let at = 0;
    for (const tx of txs) {
      const raw = tx.serialize();
      const { recovery, chainId } = request(tx);
      // The raw bytes decode back to the same transaction (what the pool does first).
      expect(bytesToHex(createTxFromRLP(raw, { common: tx.common }).hash())).toBe(bytesToHex(tx.hash()));
      expect(bytesToHex(signedParts(raw, chainId)?.hash as Uint8Array)).toBe(
        bytesToHex(tx.getMessageToVerifySignature()),
      );
      at = packEntry(input, at, raw, recovery, chainId);
    }
    const out = recoverBatch(input);
    expect(out.length).toBe(txs.length * RECOVERY_OUTPUT);
    txs.forEach((tx, i) => {
      const at = i * RECOVERY_OUTPUT;
      expect(out[at]).toBe(1);
      expect(bytesToHex(out.subarray(at + OUTPUT_PUBLIC_KEY, at + OUTPUT_ADDRESS))).toBe(
        bytesToHex(tx.getSenderPublicKey()),
      );
      expect(bytesToHex(out.subarray(at + OUTPUT_ADDRESS, at + OUTPUT_HASH))).toBe(
        tx.getSenderAddress().toString(),
      );
      expect(bytesToHex(out.subarray(at + OUTPUT_HASH, at + RECOVERY_OUTPUT))).toBe(bytesToHex(tx.hash()));
    });
  });

  it('answers each caller of a batch, and undefined where no key recovers', async () => {
    const txs = shapes();
    const recovery = new SenderRecovery();
    try {
      const results = await Promise.all([
        ...txs.map((tx) => {
          const { recovery: id, chainId } = request(tx);
          return recovery.recover(tx.serialize(), id, chainId);
        }),
        // r = 0 is no point on the curve
        recovery.recover(
          createFeeMarket1559Tx(
            { chainId: 1337n, gasLimit: 21000n, maxFeePerGas: 1n, r: 0n, s: 1n, v: 0n },
            { common: common(1337) },
          ).serialize(),
          0,
          new Uint8Array(),
        ),
      ]);
      txs.forEach((tx, i) => {
        const r = results[i];
        expect(bytesToHex(r?.publicKey as Uint8Array)).toBe(bytesToHex(tx.getSenderPublicKey()));
        expect(bytesToHex(r?.address as Uint8Array)).toBe(tx.getSenderAddress().toString());
        expect(bytesToHex(r?.hash as Uint8Array)).toBe(bytesToHex(tx.hash()));
      });
      const unrecoverable = results[txs.length];
      expect(unrecoverable?.publicKey).toBeUndefined();
      expect(unrecoverable?.address).toBeUndefined();
      expect(unrecoverable?.hash?.length).toBe(32);
    } finally {
      await recovery.close();
    }
  });

  // The compiled module, beside which the recovery thread's script is: the batches go to the thread.
  it('answers every caller of a burst that spans several batches on the thread', async () => {
    const c = common(1337);
    const keys = Array.from({ length: 21 }, (_, i) => new Uint8Array(32).fill(i + 1));
    const txs = keys.map((key, i) =>
      createFeeMarket1559Tx(
        { chainId: 1337n, nonce: BigInt(i), maxFeePerGas: 10n, gasLimit: 21000n, to, value: BigInt(i) },
        { common: c },
      ).sign(key),
    );
    const recovery = new ThreadedRecovery();
    try {
      const results = await Promise.all(
        txs.map((tx) => {
          const { recovery: id, chainId } = request(tx);
          return recovery.recover(tx.serialize(), id, chainId);
        }),
      );
      expect(new Set(results.map((r) => bytesToHex(r.address as Uint8Array))).size).toBe(txs.length);
      txs.forEach((tx, i) => {
        expect(bytesToHex(results[i]?.address as Uint8Array)).toBe(tx.getSenderAddress().toString());
        expect(bytesToHex(results[i]?.hash as Uint8Array)).toBe(bytesToHex(tx.hash()));
      });
    } finally {
      await recovery.close();
    }
  });
});
