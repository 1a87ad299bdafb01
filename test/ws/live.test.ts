/**
 * Subscriptions on live blocks: a mining dev node (built CLI, `--miner-enabled`) mines the
 * transactions sent over HTTP; WebSocket subscribers (raw `ws` and viem's webSocket transport) receive
 * the heads and the logs of the mined blocks, filtered by address and topics, and nothing after they
 * unsubscribe.
 */
import { createPublicClient, type Hex, webSocket } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../helpers/node.js';
import {
  DEV_ACCOUNTS,
  type DevNode,
  devChain,
  PING_EVENT,
  PING_INIT_CODE,
  PING_TOPIC,
  pingData,
  startDevNode,
} from './devNode.js';
import { Client, sleep } from './helpers.js';

const GWEI = 10n ** 9n;
const account = DEV_ACCOUNTS[1] as (typeof DEV_ACCOUNTS)[number];
const COINBASE = '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73';

interface Receipt {
  blockHash: string;
  blockNumber: string;
  contractAddress: string | null;
  status: string;
}

let dev: DevNode;
let nonce = 0;
let contract: Hex;

async function send(tx: { to?: Hex; data: Hex; gas: bigint }): Promise<Hex> {
  const raw = await account.signTransaction({
    chainId: 1337,
    nonce: nonce++,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: GWEI,
    ...tx,
  });
  return rpc<Hex>(dev.http, 'eth_sendRawTransaction', [raw]);
}

async function mined(hash: Hex, timeoutMs = 60_000): Promise<Receipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await rpc<Receipt | null>(dev.http, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() > deadline) throw new Error(`${hash} not mined within ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function blockNumber(): Promise<number> {
  return Number(await rpc<string>(dev.http, 'eth_blockNumber'));
}

/** Resolves once the chain has grown by `n` blocks. */
async function blocksPass(n: number, timeoutMs = 60_000): Promise<void> {
  const target = (await blockNumber()) + n;
  const deadline = Date.now() + timeoutMs;
  while ((await blockNumber()) < target) {
    if (Date.now() > deadline) throw new Error(`no ${n} new blocks within ${timeoutMs} ms`);
    await sleep(100);
  }
}

beforeAll(async () => {
  dev = await startDevNode(['--miner-enabled', `--miner-coinbase=${COINBASE}`]);
  nonce = Number(await rpc<string>(dev.http, 'eth_getTransactionCount', [account.address, 'pending']));
  const receipt = await mined(await send({ data: PING_INIT_CODE, gas: 200_000n }));
  expect(receipt.status).toBe('0x1');
  contract = receipt.contractAddress as Hex;
}, 120_000);
afterAll(async () => {
  await dev?.stop();
});

describe('raw ws subscriptions on a mining dev node', () => {
  it('newHeads follows the mined chain; logs filtered by address and topics; unsubscribe stops both', async () => {
    const c = await Client.connect(dev.ws);
    const heads = (await c.call('eth_subscribe', ['newHeads'])).result as string;
    const byAddress = (await c.call('eth_subscribe', ['logs', { address: contract }])).result as string;
    const byTopic = (
      await c.call('eth_subscribe', ['logs', { address: [contract], topics: [PING_TOPIC, [pingData(7n)]] }])
    ).result as string;
    const otherAddress = (await c.call('eth_subscribe', ['logs', { address: `0x${'12'.repeat(20)}` }]))
      .result as string;

    const seven = await send({ to: contract, data: pingData(7n), gas: 60_000n });
    const eight = await send({ to: contract, data: pingData(8n), gas: 60_000n });
    const r7 = await mined(seven);
    const r8 = await mined(eight);
    await blocksPass(1);

    const received: Array<{
      method: string;
      params: { subscription: string; result: Record<string, unknown> };
    }> = [];
    for (;;) {
      try {
        received.push(await c.next(300));
      } catch {
        break;
      }
    }
    expect(received.every((m) => m.method === 'eth_subscription')).toBe(true);
    const of = (id: string) =>
      received.filter((m) => m.params.subscription === id).map((m) => m.params.result);

    // Consecutive heads, each child of the one before, including the blocks that mined our transactions.
    const headList = of(heads);
    expect(headList.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < headList.length; i++) {
      expect(Number(headList[i]?.number)).toBe(Number(headList[i - 1]?.number) + 1);
      expect(headList[i]?.parentHash).toBe(headList[i - 1]?.hash);
    }
    const headHashes = headList.map((h) => h.hash);
    expect(headHashes).toContain(r7.blockHash);
    expect(headHashes).toContain(r8.blockHash);
    const h7 = headList.find((h) => h.hash === r7.blockHash);
    expect(h7?.miner).toBe(COINBASE);
    expect(h7?.transactions).toContain(seven);
    // Each head is the block eth_getBlockByHash serves.
    expect(await rpc(dev.http, 'eth_getBlockByHash', [r7.blockHash, false])).toEqual(h7);

    const logs = of(byAddress);
    expect(logs.map((l) => l.transactionHash)).toEqual([seven, eight]);
    expect(logs[0]).toMatchObject({
      address: contract,
      topics: [PING_TOPIC, pingData(7n)],
      data: pingData(7n),
      blockHash: r7.blockHash,
      blockNumber: r7.blockNumber,
      removed: false,
    });
    const fromChain = await rpc<unknown[]>(dev.http, 'eth_getLogs', [
      { address: contract, fromBlock: r7.blockNumber, toBlock: r8.blockNumber },
    ]);
    expect(logs).toEqual(fromChain);
    expect(of(byTopic)).toEqual([logs[0]]);
    expect(of(otherAddress)).toEqual([]);

    for (const id of [heads, byAddress, byTopic, otherAddress]) {
      expect((await c.call('eth_unsubscribe', [id])).result).toBe(true);
    }
    // Whatever arrived before the last answer was sent before the unsubscriptions took effect.
    c.received.length = 0;
    await mined(await send({ to: contract, data: pingData(7n), gas: 60_000n }));
    await blocksPass(1);
    expect(await c.silent(500)).toBe(true);
    c.close();
  }, 120_000);

  it('newHeads with includeTransactions carries the mined transaction objects', async () => {
    const c = await Client.connect(dev.ws);
    const id = (await c.call('eth_subscribe', ['newHeads', { includeTransactions: true }])).result;
    const hash = await send({ to: contract, data: pingData(3n), gas: 60_000n });
    const r = await mined(hash);
    for (;;) {
      const m = await c.next(60_000);
      expect(m.params.subscription).toBe(id);
      if (m.params.result.hash !== r.blockHash) continue;
      expect(m.params.result).toEqual(await rpc(dev.http, 'eth_getBlockByHash', [r.blockHash, true]));
      expect(m.params.result.transactions.map((t: { hash: string }) => t.hash)).toContain(hash);
      break;
    }
    c.close();
  }, 120_000);
});

describe("viem's webSocket transport on a mining dev node", () => {
  it('watchBlocks and watchContractEvent receive mined blocks and logs, and stop when unwatched', async () => {
    const client = createPublicClient({ chain: devChain, transport: webSocket(dev.ws) });
    const blocks: Array<{ number: bigint; hash: Hex }> = [];
    const events: Array<{ args: { n?: bigint; v?: bigint }; transactionHash: Hex }> = [];
    const unwatchBlocks = client.watchBlocks({
      onBlock: (b) => blocks.push({ number: b.number, hash: b.hash }),
    });
    const unwatchEvents = client.watchContractEvent({
      address: contract,
      abi: [PING_EVENT],
      eventName: 'Ping',
      args: { n: 42n },
      onLogs: (logs) => events.push(...(logs as unknown as typeof events)),
    });
    await sleep(300);
    const skipped = await send({ to: contract, data: pingData(41n), gas: 60_000n });
    const wanted = await send({ to: contract, data: pingData(42n), gas: 60_000n });
    const r = await mined(wanted);
    await mined(skipped);
    await blocksPass(1);
    // The head is visible over HTTP as soon as it is committed; its notification follows.
    for (let i = 0; i < 50 && (events.length === 0 || blocks.length < 2); i++) await sleep(100);

    expect(events).toHaveLength(1);
    expect(events[0]?.args).toEqual({ n: 42n, v: 42n });
    expect(events[0]?.transactionHash).toBe(wanted);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < blocks.length; i++) {
      expect(blocks[i]?.number).toBe((blocks[i - 1]?.number as bigint) + 1n);
    }
    expect(blocks.map((b) => b.hash)).toContain(r.blockHash);

    unwatchBlocks();
    unwatchEvents();
    await sleep(300);
    const seen = blocks.length;
    await mined(await send({ to: contract, data: pingData(42n), gas: 60_000n }));
    await blocksPass(1);
    await sleep(300);
    expect(blocks.length).toBe(seen);
    expect(events).toHaveLength(1);
    await (await client.transport.getRpcClient()).close();
  }, 120_000);
});
