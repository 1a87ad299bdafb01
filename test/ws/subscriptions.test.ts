import { createPublicClient, webSocket } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/rpc/dispatch.js';
import { startHttpServer } from '../../src/rpc/server/http.js';
import type { Services } from '../../src/rpc/services.js';
import { logMatches, parseLogFilter } from '../../src/rpc/subscriptions/logFilter.js';
import { subscriptionMethods } from '../../src/rpc/subscriptions/methods.js';
import { Client, type Harness, recordingMethods, sleep, startHarness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const A = `0x${'aa'.repeat(20)}`;
const B = `0x${'bb'.repeat(20)}`;
const T1 = `0x${'01'.repeat(32)}`;
const T2 = `0x${'02'.repeat(32)}`;
const T3 = `0x${'03'.repeat(32)}`;

function header(n: number) {
  return {
    number: `0x${n.toString(16)}`,
    hash: `0x${n.toString(16).padStart(64, '0')}`,
    parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}`,
    transactions: [`0x${'cd'.repeat(32)}`],
  };
}

function log(address: string, topics: string[], index = 0, removed = false) {
  return {
    logIndex: `0x${index.toString(16)}`,
    removed,
    blockNumber: '0x5',
    blockHash: `0x${'05'.repeat(32)}`,
    transactionHash: `0x${'ee'.repeat(32)}`,
    transactionIndex: '0x0',
    address,
    data: '0x',
    topics,
  };
}

const notification = (subscription: string, result: unknown) => ({
  jsonrpc: '2.0',
  method: 'eth_subscription',
  params: { subscription, result },
});

describe('eth_subscribe / eth_unsubscribe', () => {
  it('newHeads: Besu notification shape, node-wide sequential ids, full transactions on request', async () => {
    h = await startHarness();
    const a = await Client.connect(h.url);
    const b = await Client.connect(h.url);
    expect(await a.call('eth_subscribe', ['newHeads'])).toEqual({ jsonrpc: '2.0', id: 1, result: '0x1' });
    expect((await b.call('eth_subscribe', ['newHeads', { includeTransactions: true }])).result).toBe('0x2');
    expect((await a.call('eth_subscribe', ['newHeads', {}])).result).toBe('0x3');

    const full = { ...header(1), transactions: [{ hash: `0x${'cd'.repeat(32)}`, nonce: '0x0' }] };
    let built = 0;
    h.source.head(header(1), [], [], () => {
      built++;
      return full;
    });
    const got = [await a.next(), await a.next()];
    expect(got).toContainEqual(notification('0x1', header(1)));
    expect(got).toContainEqual(notification('0x3', header(1)));
    expect(await b.next()).toEqual(notification('0x2', full));
    expect(built).toBe(1);
    a.close();
    b.close();
  });

  it('formats a block once for all its subscribers, and not at all when nobody listens', async () => {
    h = await startHarness();
    const calls = { header: 0, full: 0, logs: 0, removed: 0 };
    const counted =
      <T>(key: keyof typeof calls, value: () => T) =>
      () => {
        calls[key]++;
        return value();
      };
    const emit = (n: number) =>
      h?.source.emit('head', {
        headerJson: counted('header', () => JSON.stringify(header(n))),
        withTransactionsJson: counted('full', () => JSON.stringify(header(n))),
        logs: counted('logs', () => [log(A, [T1])]),
        removedLogs: counted('removed', () => []),
      });
    emit(1);
    expect(calls).toEqual({ header: 0, full: 0, logs: 0, removed: 0 });

    const clients = await Promise.all([1, 2, 3].map(() => Client.connect((h as Harness).url)));
    for (const c of clients) {
      await c.call('eth_subscribe', ['newHeads']);
      await c.call('eth_subscribe', ['logs', {}]);
    }
    emit(2);
    for (const c of clients)
      expect([(await c.next()).params.result, (await c.next()).params.result]).toEqual([
        header(2),
        log(A, [T1]),
      ]);
    expect(calls).toEqual({ header: 1, full: 0, logs: 1, removed: 1 });
    for (const c of clients) c.close();
  });

  it('logs: address and topic filters, removed logs first with removed: true', async () => {
    h = await startHarness();
    const c = await Client.connect(h.url);
    const all = (await c.call('eth_subscribe', ['logs', {}])).result;
    const byAddress = (
      await c.call('eth_subscribe', ['logs', { address: [A.toUpperCase().replace('0X', '0x')] }])
    ).result;
    const byTopics = (await c.call('eth_subscribe', ['logs', { topics: [null, [T2, T3]] }])).result;

    const l1 = log(A, [T1, T2], 0);
    const l2 = log(B, [T1], 1);
    const gone = log(B, [T3, T3], 0, false);
    h.source.head(header(5), [l1, l2], [gone]);

    const received: Array<{ params: { subscription: string; result: Record<string, unknown> } }> = [];
    for (;;) {
      try {
        received.push(await c.next(300));
      } catch {
        break;
      }
    }
    const forSub = (id: string) =>
      received.filter((m) => m.params.subscription === id).map((m) => m.params.result);
    expect(forSub(all)).toEqual([{ ...gone, removed: true }, l1, l2]);
    expect(forSub(byAddress)).toEqual([l1]);
    expect(forSub(byTopics)).toEqual([{ ...gone, removed: true }, l1]);
    c.close();
  });

  it('newPendingTransactions (hash or detail), droppedPendingTransactions, syncing', async () => {
    h = await startHarness();
    const c = await Client.connect(h.url);
    const hashes = (await c.call('eth_subscribe', ['newPendingTransactions'])).result;
    const details = (await c.call('eth_subscribe', ['newPendingTransactions', { includeTransactions: true }]))
      .result;
    const dropped = (await c.call('eth_subscribe', ['droppedPendingTransactions'])).result;
    const syncing = (await c.call('eth_subscribe', ['syncing'])).result;
    const tx = { from: A, hash: T1, nonce: '0x0' };

    let built = 0;
    h.source.emit('pending', T1, () => {
      built++;
      return tx;
    });
    expect([await c.next(), await c.next()]).toEqual([notification(hashes, T1), notification(details, tx)]);
    expect(built).toBe(1);
    h.source.emit('dropped', T1);
    expect(await c.next()).toEqual(notification(dropped, T1));
    const status = { startingBlock: '0x0', currentBlock: '0x1', highestBlock: '0x9' };
    h.source.emit('syncing', status);
    expect(await c.next()).toEqual(notification(syncing, status));
    h.source.emit('syncing', false);
    expect(await c.next()).toEqual(notification(syncing, false));
    c.close();
  });

  it('unsubscribe stops notifications; unknown and foreign ids are not found', async () => {
    h = await startHarness();
    const a = await Client.connect(h.url);
    const b = await Client.connect(h.url);
    const id = (await a.call('eth_subscribe', ['newHeads'])).result;
    const notFound = { code: -32000, message: 'Subscription not found' };
    expect((await b.call('eth_unsubscribe', [id])).error).toEqual(notFound);
    expect(await a.call('eth_unsubscribe', [id])).toEqual({ jsonrpc: '2.0', id: 2, result: true });
    expect((await a.call('eth_unsubscribe', [id])).error).toEqual(notFound);
    expect((await a.call('eth_unsubscribe', ['0x99'])).error).toEqual(notFound);
    h.source.head(header(2));
    expect(await a.silent()).toBe(true);
    a.close();
    b.close();
  });

  it('malformed requests are -32600 Invalid Request', async () => {
    h = await startHarness();
    const c = await Client.connect(h.url);
    const invalid = { code: -32600, message: 'Invalid Request' };
    for (const params of [
      [],
      ['newBlocks'],
      ['NewHeads'],
      ['logs'],
      ['logs', { address: '0x1234' }],
      ['logs', { topics: ['0x12'] }],
      ['logs', { topics: 'x' }],
      ['newHeads', { includeTransactions: 'yes' }],
      ['newHeads', 5],
    ]) {
      expect((await c.call('eth_subscribe', params)).error, JSON.stringify(params)).toEqual(invalid);
    }
    for (const params of [[], ['xyz'], [{}], [-1]]) {
      expect((await c.call('eth_unsubscribe', params)).error, JSON.stringify(params)).toEqual(invalid);
    }
    expect(h.subscriptions.size).toBe(0);
    c.close();
  });

  it('eth_subscribe over HTTP is -32604 Method not enabled', async () => {
    const { methods } = recordingMethods();
    for (const withSubs of [false, true]) {
      const http = await startHttpServer({
        host: '127.0.0.1',
        port: 0,
        dispatcher: createDispatcher({
          methods: withSubs ? [...methods, ...subscriptionMethods] : methods,
          enabledGroups: ['ETH'],
          maxBatchSize: 0,
        }),
        services: {} as Services,
        maxRequestContentLength: 1 << 20,
        hostAllowlist: ['*'],
        corsOrigins: [],
        maxActiveConnections: 10,
      });
      try {
        const res = await fetch(`http://127.0.0.1:${http.port}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }),
        });
        expect(await res.json()).toEqual({
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32604, message: 'Method not enabled' },
        });
      } finally {
        await http.close();
      }
    }
  });
});

describe('viem webSocket transport', () => {
  it('watchBlockNumber and watchEvent receive notifications and stop after unwatching', async () => {
    h = await startHarness();
    const client = createPublicClient({ transport: webSocket(h.url) });
    const numbers: bigint[] = [];
    const logs: unknown[] = [];
    // over a webSocket transport viem subscribes (eth_subscribe) rather than polls
    const unwatchBlocks = client.watchBlockNumber({ onBlockNumber: (n) => numbers.push(n) });
    const unwatchLogs = client.watchEvent({
      address: A as `0x${string}`,
      onLogs: (l) => logs.push(...l),
    });
    for (let i = 0; i < 50 && h.subscriptions.size < 2; i++) await sleep(20);
    expect(h.subscriptions.size).toBe(2);

    h.source.head(header(1), [log(A, [T1], 0), log(B, [T1], 1)]);
    h.source.head(header(2));
    for (let i = 0; i < 50 && (numbers.length < 2 || logs.length < 1); i++) await sleep(20);
    expect(numbers).toEqual([1n, 2n]);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ address: A, logIndex: 0, blockNumber: 5n, removed: false });

    unwatchBlocks();
    unwatchLogs();
    for (let i = 0; i < 50 && h.subscriptions.size > 0; i++) await sleep(20);
    expect(h.subscriptions.size).toBe(0);
    await (await client.transport.getRpcClient()).close();
  });
});

describe('log filter matching', () => {
  it('follows Besu: positional topics, null wildcards, OR lists, more positions than topics never match', () => {
    const f = (v: unknown) =>
      parseLogFilter(v) ??
      (() => {
        throw new Error('invalid');
      })();
    expect(logMatches(f({}), log(A, []))).toBe(true);
    expect(logMatches(f({ address: A }), log(B, []))).toBe(false);
    expect(logMatches(f({ address: [A, B] }), log(B, []))).toBe(true);
    expect(logMatches(f({ address: [] }), log(B, []))).toBe(true);
    expect(logMatches(f({ topics: [T1] }), log(A, [T1, T2]))).toBe(true);
    expect(logMatches(f({ topics: [null, T2] }), log(A, [T1, T2]))).toBe(true);
    expect(logMatches(f({ topics: [[T2, T1]] }), log(A, [T1]))).toBe(true);
    expect(logMatches(f({ topics: [T2] }), log(A, [T1]))).toBe(false);
    expect(logMatches(f({ topics: [T1, null] }), log(A, [T1]))).toBe(false);
    expect(logMatches(f({ topics: [T1.toUpperCase().replace('0X', '0x')] }), log(A, [T1]))).toBe(true);
    expect(parseLogFilter({ address: 'nope' })).toBeUndefined();
    expect(parseLogFilter({ topics: [[T1, 5]] })).toBeUndefined();
    expect(parseLogFilter(null)).toBeUndefined();
  });
});
