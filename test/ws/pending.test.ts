/**
 * newPendingTransactions against the built node: raw transactions sent over HTTP reach WS subscribers
 * as hashes, or as Besu's pending-transaction detail object when `{includeTransactions: true}`; a
 * replaced transaction reaches droppedPendingTransactions.
 */
import { type Hex, keccak256, parseTransaction, type TransactionSerializable, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../helpers/node.js';
import { DEV_ACCOUNTS, type DevNode, PING_INIT_CODE, startDevNode } from './devNode.js';
import { Client } from './helpers.js';

const GWEI = 10n ** 9n;
const account = DEV_ACCOUNTS[0] as (typeof DEV_ACCOUNTS)[number];
const TO = '0x627306090abab3a6e1400e9345bc60c78a8bef57';

let dev: DevNode;
beforeAll(async () => {
  // Only NET and WEB3 on WS: the subscription methods stay available, as with Besu.
  dev = await startDevNode(['--rpc-ws-api=NET,WEB3']);
}, 90_000);
afterAll(async () => {
  await dev?.stop();
});

/** The detail object as Besu builds it, derived from the signed bytes alone. */
function expectedDetail(raw: Hex): Record<string, unknown> {
  const tx = parseTransaction(raw);
  const q = (v: bigint | number | undefined) => toHex(v ?? 0n);
  const typeNumber = { legacy: 0, eip2930: 1, eip1559: 2 }[tx.type as 'legacy' | 'eip2930' | 'eip1559'];
  const out: Record<string, unknown> = {
    from: account.address.toLowerCase(),
    gas: q(tx.gas),
    gasPrice: typeNumber < 2 ? q(tx.gasPrice) : null,
    hash: keccak256(raw),
    input: tx.data ?? '0x',
    nonce: q(tx.nonce),
    to: tx.to ? tx.to.toLowerCase() : null,
    type: q(typeNumber),
    value: q(tx.value),
  };
  if (typeNumber !== 0) out.yParity = q(tx.yParity);
  out.v = typeNumber === 0 ? q(tx.v) : q(tx.yParity);
  out.r = q(BigInt(tx.r as Hex));
  out.s = q(BigInt(tx.s as Hex));
  return out;
}

describe('newPendingTransactions on a dev node', () => {
  it('delivers hashes and detail objects for legacy, access-list, EIP-1559 and creation transactions', async () => {
    const c = await Client.connect(dev.ws);
    // ETH is not enabled on this WS service, yet eth_subscribe is there.
    expect((await c.call('eth_blockNumber')).error).toEqual({ code: -32604, message: 'Method not enabled' });
    const hashes = (await c.call('eth_subscribe', ['newPendingTransactions'])).result;
    const details = (await c.call('eth_subscribe', ['newPendingTransactions', { includeTransactions: true }]))
      .result;
    expect(hashes).toMatch(/^0x[0-9a-f]+$/);

    const nonce = Number(await rpc<string>(dev.http, 'eth_getTransactionCount', [account.address, 'latest']));
    const txs: TransactionSerializable[] = [
      { chainId: 1337, nonce, gas: 21000n, gasPrice: 2n * GWEI, to: TO, value: 12345n },
      {
        chainId: 1337,
        nonce: nonce + 1,
        type: 'eip2930',
        gas: 30000n,
        gasPrice: 2n * GWEI,
        to: TO,
        value: 1n,
        data: '0xdeadbeef',
        accessList: [],
      },
      {
        chainId: 1337,
        nonce: nonce + 2,
        gas: 25000n,
        maxFeePerGas: 3n * GWEI,
        maxPriorityFeePerGas: GWEI,
        to: TO,
        value: 0n,
      },
      {
        chainId: 1337,
        nonce: nonce + 3,
        gas: 200000n,
        maxFeePerGas: 3n * GWEI,
        maxPriorityFeePerGas: GWEI,
        data: PING_INIT_CODE,
      },
    ];
    for (const tx of txs) {
      const raw = await account.signTransaction(tx);
      const hash = await rpc<string>(dev.http, 'eth_sendRawTransaction', [raw]);
      expect(hash).toBe(keccak256(raw));
      const got = [await c.next(), await c.next()];
      const byId = (id: string) => got.find((m) => m.params.subscription === id);
      expect(byId(hashes)).toEqual({
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: { subscription: hashes, result: hash },
      });
      const detail = byId(details).params.result;
      expect(detail).toEqual(expectedDetail(raw));
      // Besu's member order.
      expect(Object.keys(detail)).toEqual(Object.keys(expectedDetail(raw)));
    }

    // A rejected transaction (nonce already used) notifies nobody.
    const dup = await account.signTransaction({ ...(txs[0] as TransactionSerializable), value: 1n });
    await expect(rpc(dev.http, 'eth_sendRawTransaction', [dup])).rejects.toThrow();
    expect(await c.silent(300)).toBe(true);

    // A replacement drops the transaction it replaces: droppedPendingTransactions names it.
    const dropped = (await c.call('eth_subscribe', ['droppedPendingTransactions'])).result;
    const replaced = await account.signTransaction({
      ...(txs[0] as TransactionSerializable),
      nonce: nonce + 5,
    });
    await rpc(dev.http, 'eth_sendRawTransaction', [replaced]);
    await c.next();
    await c.next();
    const replacement = await account.signTransaction({
      ...(txs[0] as TransactionSerializable),
      nonce: nonce + 5,
      gasPrice: 4n * GWEI,
    });
    await rpc(dev.http, 'eth_sendRawTransaction', [replacement]);
    const after = [await c.next(), await c.next(), await c.next()];
    expect(after.find((m) => m.params.subscription === dropped)?.params.result).toBe(keccak256(replaced));
    expect(after.find((m) => m.params.subscription === hashes)?.params.result).toBe(keccak256(replacement));
    expect((await c.call('eth_unsubscribe', [dropped])).result).toBe(true);

    expect((await c.call('eth_unsubscribe', [hashes])).result).toBe(true);
    const raw = await account.signTransaction({ ...(txs[0] as TransactionSerializable), nonce: nonce + 6 });
    await rpc(dev.http, 'eth_sendRawTransaction', [raw]);
    const only = await c.next();
    expect(only.params.subscription).toBe(details);
    expect(await c.silent(300)).toBe(true);
    c.close();
  });
});
