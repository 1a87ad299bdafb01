import { createBlock } from '@ethereumjs/block';
import { Common, Mainnet } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import {
  createBlob4844Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import {
  bigIntToBytes,
  bytesToHex,
  eoaCode7702SignAuthorization,
  hexToBytes,
  privateToAddress,
} from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PooledTx, TxPool } from '../../src/txpool/pool.js';
import type { TestChain } from '../methods/chain.js';
import { openPoolChain, pragueGenesisFile, removeGenesisFile } from './helpers.js';

const KEY = hexToBytes(`0x${'11'.repeat(32)}`);
const POOR = hexToBytes(`0x${'22'.repeat(32)}`);
const A = bytesToHex(privateToAddress(KEY));
const B = bytesToHex(privateToAddress(POOR));
const TO = `0x${'aa'.repeat(20)}`;
const GWEI = 10n ** 9n;
const SECP_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function genesisFile(): string {
  return pragueGenesisFile('alder-pool-', {
    [A]: { balance: '0x3635c9adc5dea00000', nonce: '0x5' },
    [B]: { balance: '0x100' },
  });
}

describe('transaction pool', () => {
  let chain: TestChain;
  let send: (
    tx: TypedTransaction | string,
  ) => Promise<{ result?: unknown; error?: { code: number; message: string } }>;
  const common = () => chain.services.common;
  const legacy = (o: Record<string, unknown> = {}, key = KEY) =>
    createLegacyTx(
      { nonce: 5, gasPrice: 10n * GWEI, gasLimit: 21000, to: TO, value: 1, ...o },
      { common: common() },
    ).sign(key);
  const eip1559 = (o: Record<string, unknown> = {}, key = KEY) =>
    createFeeMarket1559Tx(
      {
        chainId: 1337,
        nonce: 5,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 21000,
        to: TO,
        ...o,
      },
      { common: common() },
    ).sign(key);

  beforeAll(async () => {
    const genesis = genesisFile();
    chain = await openPoolChain({ genesis }, { minGasPrice: 1000n, maxFutureBySender: 200 });
    removeGenesisFile(genesis);
    send = (tx) =>
      chain.call('eth_sendRawTransaction', [
        typeof tx === 'string'
          ? tx
          : bytesToHex(
              tx.type === 3
                ? (tx as unknown as { serializeNetworkWrapper(): Uint8Array }).serializeNetworkWrapper()
                : tx.serialize(),
            ),
      ]);
  });
  afterAll(async () => {
    await chain?.close();
  });
  const err = (code: number, message: string) => ({ error: { code, message } });

  it('undecodable bytes and bad arity are -32602', async () => {
    expect(await send('0x00')).toEqual(err(-32602, 'Invalid params'));
    expect(await send('0x0123')).toEqual(err(-32602, 'Invalid params'));
    expect(await send('0xzz')).toEqual(err(-32602, 'Invalid params'));
    expect(await chain.call('eth_sendRawTransaction', [])).toEqual(err(-32602, 'Invalid number of params'));
  });

  it('a transaction without a signature (r or s zero, or beyond the curve order) is -32602 Invalid params, as Besu', async () => {
    const fields = { nonce: 5, gasPrice: 10n * GWEI, gasLimit: 21000, to: TO };
    for (const [r, s] of [
      [0n, 0n],
      [1n, 0n],
      [0n, 1n],
      [SECP_N, 1n],
      [1n, SECP_N],
    ]) {
      const unsigned = createLegacyTx({ ...fields, v: 28n, r, s }, { common: common() });
      expect(await send(unsigned), `r=${r} s=${s}`).toEqual(err(-32602, 'Invalid params'));
    }
    const typed = createFeeMarket1559Tx(
      {
        chainId: 1337,
        nonce: 5,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 21000,
        to: TO,
        v: 0n,
        r: 0n,
        s: 0n,
      },
      { common: common() },
    );
    expect(await send(typed)).toEqual(err(-32602, 'Invalid params'));
  });

  it('rejects with Besu codes and messages', async () => {
    const badSig = createLegacyTx(
      { nonce: 5, gasPrice: 10n * GWEI, gasLimit: 21000, to: TO, v: 27n, r: 1n, s: SECP_N - 1n },
      { common: common() },
    );
    expect(await send(badSig)).toEqual(err(-32002, 'Invalid signature'));
    const mainnet = new Common({ chain: Mainnet, hardfork: 'prague' });
    const otherChain = createFeeMarket1559Tx(
      { chainId: 1, nonce: 5, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21000, to: TO },
      { common: mainnet },
    ).sign(KEY);
    expect(await send(otherChain)).toEqual(err(-32000, 'Wrong chainId'));
    expect(await send(eip1559({ nonce: 4 }))).toEqual(err(-32001, 'Nonce too low'));
    expect(await send(eip1559({ nonce: 205 }))).toEqual(
      err(-32000, 'Transaction nonce is too distant from current sender nonce'),
    );
    expect(await send(eip1559({ gasLimit: 20000 }))).toEqual(err(-32003, 'Intrinsic gas exceeds gas limit'));
    expect(await send(eip1559({ gasLimit: 40_000_000 }))).toEqual(
      err(-32005, 'Transaction gas limit exceeds block gas limit'),
    );
    expect(await send(eip1559({ nonce: 0 }, POOR))).toEqual(
      err(-32004, 'Upfront cost exceeds account balance'),
    );
    expect(await send(legacy({ gasPrice: 999 }))).toEqual(
      err(-32009, 'Gas price below configured minimum gas price'),
    );
    const t = eip1559();
    const f = t.raw() as unknown as Uint8Array[];
    f[2] = bigIntToBytes(20n * GWEI);
    const swapped = bytesToHex(new Uint8Array([2, ...RLP.encode(f as never)]));
    expect(await send(swapped)).toEqual(err(-32000, 'Max priority fee per gas exceeds max fee per gas'));
    expect(await send(eip1559({ maxFeePerGas: 10n ** 14n, gasLimit: 100_000 }))).toEqual(
      err(-32000, 'Transaction fee cap exceeded'),
    );
    const big = new Uint8Array(130 * 1024).fill(1);
    expect((await send(eip1559({ data: big, gasLimit: 6_000_000 }))).error?.code).toBe(-32603);
  });

  it('below the next base fee is -32009', async () => {
    const pool = chain.services.txPool!;
    const fee = chain.services.chain.headHeader().calcNextBaseFee();
    if (fee > 1000n)
      expect(await send(legacy({ gasPrice: 1000n }))).toEqual(
        err(-32009, 'Gas price below current base fee'),
      );
    expect(pool.size).toBe(0);
  });

  it('strict replay protection refuses pre-EIP-155 legacy transactions', async () => {
    const pool = chain.services.txPool!;
    const old = new Common({ chain: Mainnet, hardfork: 'tangerineWhistle' });
    const unprotected = createLegacyTx(
      { nonce: 5, gasPrice: 10n * GWEI, gasLimit: 21000, to: TO },
      { common: old },
    ).sign(KEY);
    expect(unprotected.v).toBe(28n - (unprotected.v === 27n ? 1n : 0n));
    const mainnetLegacy = createLegacyTx({ nonce: 5, gasPrice: 10n * GWEI, gasLimit: 21000, to: TO }).sign(
      KEY,
    );
    expect(await send(mainnetLegacy)).toEqual(err(-32000, 'Wrong chainId'));
    (pool.options as { strictReplayProtection: boolean }).strictReplayProtection = true;
    expect(await send(unprotected)).toEqual(err(-32000, 'ChainId is required'));
    (pool.options as { strictReplayProtection: boolean }).strictReplayProtection = false;
    const wrong = createLegacyTx(
      { nonce: 5, gasPrice: 10n * GWEI, gasLimit: 21000, to: TO },
      { common: common() },
    );
    expect(wrong.v).toBeUndefined();
  });

  it('accepts, knows, replaces with the price bump, and shows the pending nonce and transaction', async () => {
    const tx = eip1559();
    // Sent twice at once: one is taken, the other is known (not a replacement of itself).
    const both = await Promise.all([send(tx), send(tx)]);
    expect(both).toContainEqual({ result: bytesToHex(tx.hash()) });
    expect(both).toContainEqual(err(-32000, 'Known transaction'));
    expect(await send(tx)).toEqual(err(-32000, 'Known transaction'));
    expect(await send(eip1559({ maxFeePerGas: 10n * GWEI + 1n, maxPriorityFeePerGas: GWEI + 1n }))).toEqual(
      err(-32000, 'Replacement transaction underpriced'),
    );
    const better = eip1559({ maxFeePerGas: 11n * GWEI, maxPriorityFeePerGas: (11n * GWEI) / 10n });
    expect(await send(better)).toEqual({ result: bytesToHex(better.hash()) });
    expect((await chain.call('eth_getTransactionByHash', [bytesToHex(tx.hash())])).result).toBeNull();
    const shown = (await chain.call('eth_getTransactionByHash', [bytesToHex(better.hash())]))
      .result as Record<string, unknown>;
    expect(shown).toMatchObject({
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      from: A,
      nonce: '0x5',
    });
    expect((await chain.call('eth_getTransactionCount', [A, 'pending'])).result).toBe('0x6');
    expect((await chain.call('eth_getTransactionCount', [A, 'latest'])).result).toBe('0x5');
  });

  it('splits pending and queued at a nonce gap', async () => {
    const gap = legacy({ nonce: 7 });
    expect((await send(gap)).result).toBe(bytesToHex(gap.hash()));
    expect((await chain.call('txpool_status')).result).toEqual({ pending: '0x1', queued: '0x1' });
    // What the block builder reads: the executable run only, as the pending side of content().
    const pool = chain.services.txPool as TxPool;
    const lanes = () => pool.pendingLanes().map((lane) => lane.map((t) => t.hashHex));
    const pendingOf = () => [...pool.content().pending.values()].map((lane) => lane.map((t) => t.hashHex));
    expect(lanes()).toEqual(pendingOf());
    expect(lanes().flat()).not.toContain(bytesToHex(gap.hash()));
    const from = (await chain.call('txpool_contentFrom', [A])).result as { pending: object; queued: object };
    expect(Object.keys(from.pending)).toEqual(['5']);
    expect(Object.keys(from.queued)).toEqual(['7']);
    const filler = legacy({ nonce: 6 });
    await send(filler);
    expect((await chain.call('txpool_status')).result).toEqual({ pending: '0x3', queued: '0x0' });
    expect((await chain.call('eth_getTransactionCount', [A, 'pending'])).result).toBe('0x8');
    expect(lanes()).toEqual(pendingOf());
    expect(lanes()[0]).toHaveLength(3);
  });

  it('TXPOOL Besu methods', async () => {
    const stats = (await chain.call('txpool_besuStatistics')).result;
    expect(stats).toEqual({ maxSize: 4096, localCount: 3, remoteCount: 0 });
    const list = (await chain.call('txpool_besuTransactions')).result as Array<Record<string, unknown>>;
    expect(list).toHaveLength(3);
    expect(list[0]).toMatchObject({ isReceivedFromLocalSource: true });
    expect(String(list[0]?.addedToPoolAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const pend = (await chain.call('txpool_besuPendingTransactions', [2])).result as unknown[];
    expect(pend).toHaveLength(2);
    const n7 = (await chain.call('txpool_besuPendingTransactions', [10, { nonce: { eq: '0x7' } }]))
      .result as Array<Record<string, unknown>>;
    expect(n7.map((t) => t.nonce)).toEqual(['0x7']);
    const gt = (await chain.call('txpool_besuPendingTransactions', [10, { nonce: { gt: '0x5' } }]))
      .result as unknown[];
    expect(gt).toHaveLength(2);
  });

  it('debug_batchSendRawTransaction answers each entry independently, with Besu reason names', async () => {
    const ok = legacy({ nonce: 8 });
    const r = (
      await chain.call('debug_batchSendRawTransaction', [
        bytesToHex(ok.serialize()),
        '0x00',
        bytesToHex(ok.serialize()),
      ])
    ).result;
    expect(r).toEqual([
      { index: 0, success: true },
      { index: 1, success: false, errorMessage: 'Invalid raw transaction hex' },
      { index: 2, success: false, errorMessage: 'TRANSACTION_ALREADY_KNOWN' },
    ]);
  });

  it('blob transactions: network wrapper with valid KZG accepted, bare or corrupted refused', async () => {
    const kzg = common().customCrypto.kzg!;
    const blob = `0x${'00'.repeat(131072)}` as `0x${string}`;
    const blobTx = createBlob4844Tx(
      {
        chainId: 1337,
        nonce: 9,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        maxFeePerBlobGas: 10n * GWEI,
        gasLimit: 21000,
        to: TO,
        blobs: [blob],
      },
      { common: common() },
    ).sign(KEY);
    expect(kzg).toBeDefined();
    const bare = bytesToHex(blobTx.serialize());
    expect((await send(bare)).error?.code).toBe(-32602);
    const wrapped = blobTx.serializeNetworkWrapper();
    const corrupt = new Uint8Array(wrapped);
    corrupt[corrupt.length - 5] ^= 0xff;
    expect((await send(bytesToHex(corrupt))).error?.code).toBeLessThan(0);
    expect(await send(blobTx)).toEqual({ result: bytesToHex(blobTx.hash()) });
  });

  it('EIP-7702 transactions are accepted', async () => {
    const auth = eoaCode7702SignAuthorization(
      { chainId: '0x539', address: TO as `0x${string}`, nonce: '0x0' },
      POOR,
    );
    const tx = createEOACode7702Tx(
      {
        chainId: 1337,
        nonce: 10,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 100_000,
        to: TO,
        authorizationList: [auth],
      },
      { common: common() },
    ).sign(KEY);
    expect(await send(tx)).toEqual({ result: bytesToHex(tx.hash()) });
  });

  it('evicts the cheapest tail beyond --tx-pool-max-size and drops mined transactions, re-injecting reorged ones', async () => {
    const pool = chain.services.txPool!;
    const dropped: PooledTx[] = [];
    pool.on('dropped', (t) => dropped.push(t));
    const max = pool.options.maxSize;
    (pool.options as { maxSize: number }).maxSize = pool.size;
    const cheap = eip1559(
      { nonce: 0, maxFeePerGas: 2000n, maxPriorityFeePerGas: 1000n, value: 0 },
      hexToBytes(`0x${'33'.repeat(32)}`),
    );
    // an unfunded sender cannot enter; use a funded replacement of the tail instead
    expect((await send(cheap)).error?.code).toBe(-32004);
    const tail = legacy({ nonce: 11, gasPrice: 2000n });
    expect((await send(tail)).result).toBe(bytesToHex(tail.hash()));
    expect(dropped.map((t) => t.hashHex)).toEqual([bytesToHex(tail.hash())]);
    (pool.options as { maxSize: number }).maxSize = max;

    const first = pool.content().pending.get(A)?.[0] as PooledTx;
    const head = chain.services.chain.getBlock(chain.services.chain.head().hash)!;
    const mined = createBlock(
      {
        header: { number: 1, parentHash: head.hash(), gasLimit: head.header.gasLimit, baseFeePerGas: 7n },
        transactions: [first.tx],
      },
      { common: common() },
    );
    const before = pool.size;
    await pool.handleNewHead({ head, added: [mined], removed: [] });
    expect(pool.size).toBe(before - 1);
    expect(pool.get(first.hash)).toBeUndefined();
    await pool.handleNewHead({ head, added: [], removed: [mined] });
    // the sender submitted through JSON-RPC before, so its transaction comes back as local
    expect(pool.get(first.hash)?.local).toBe(true);
    expect(pool.size).toBe(before);
  });

  it('local transactions may pay less than --min-gas-price while mining, down to the fee floor', async () => {
    const { TxPool, TxPoolError } = await import('../../src/txpool/pool.js');
    const s = chain.services;
    const base = (s.txPool as NonNullable<typeof s.txPool>).options;
    const reason = (p: Promise<unknown>) =>
      p.then(
        () => 'added',
        (e: unknown) => (e instanceof TxPoolError ? e.reason : String(e)),
      );
    const cheap = legacy({ nonce: 5, gasPrice: 7n });
    const mining = new TxPool(s.chain, s.world, s.common, { ...base, miningEnabled: true });
    expect(await reason(mining.add(cheap, false))).toBe('GAS_PRICE_TOO_LOW');
    expect(await reason(mining.add(cheap, true))).toBe('added');
    // this genesis starts London at 7 wei, so 7 is the floor even for local transactions
    expect(await reason(mining.add(legacy({ nonce: 6, gasPrice: 6n }), true))).toBe('GAS_PRICE_TOO_LOW');
    mining.close();
    const idle = new TxPool(s.chain, s.world, s.common, { ...base, miningEnabled: false });
    expect(await reason(idle.add(cheap, true))).toBe('GAS_PRICE_TOO_LOW');
    idle.close();
    const noPriority = new TxPool(s.chain, s.world, s.common, {
      ...base,
      miningEnabled: true,
      noLocalPriority: true,
    });
    expect(await reason(noPriority.add(cheap, true))).toBe('GAS_PRICE_TOO_LOW');
    noPriority.close();
  });

  it('drops transactions older than --tx-pool-retention-hours', async () => {
    const { TxPool } = await import('../../src/txpool/pool.js');
    const s = chain.services;
    let clock = 1_000;
    const pool = new TxPool(s.chain, s.world, s.common, {
      ...(s.txPool as NonNullable<typeof s.txPool>).options,
      retentionHours: 1,
      now: () => clock,
    });
    await pool.add(legacy({ nonce: 5 }), true);
    clock += 3_599_999;
    pool.dropExpired();
    expect(pool.size).toBe(1);
    clock += 2;
    pool.dropExpired();
    expect(pool.size).toBe(0);
    pool.close();
  });
});
