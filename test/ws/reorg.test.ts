/**
 * Subscriptions across a reorganisation: a node (real database, importer and WebSocket server, in
 * process) imports a 3-block proof-of-work chain, then a heavier 5-block side chain from the same
 * genesis. newHeads subscribers see every block of the new branch in order; logs subscribers see the
 * logs of the blocks taken off the chain again with `removed: true`, before the new branch's logs.
 */
import { createBlockFromRLP } from '@ethereumjs/block';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GeneratedChain, generateChain } from '../../bench/genchain.mjs';
import { readBlockFile } from '../../src/chain/rlpFile.js';
import { createDispatcher } from '../../src/rpc/dispatch.js';
import { blockAnswerOf } from '../../src/rpc/methods/eth/blocks.js';
import { allMethods } from '../../src/rpc/methods/index.js';
import { startWsServer, type WsServer } from '../../src/rpc/server/ws.js';
import { chainSubscriptionSource } from '../../src/rpc/subscriptions/chainSource.js';
import { SubscriptionManager } from '../../src/rpc/subscriptions/manager.js';
import { subscriptionMethods } from '../../src/rpc/subscriptions/methods.js';
import { removeDir, tempDir } from '../helpers/node.js';
import { openTestChain, type TestChain } from '../methods/chain.js';
import { Client } from './helpers.js';

interface Log {
  blockHash: string;
  blockNumber: string;
  logIndex: string;
  removed: boolean;
  [k: string]: unknown;
}

describe('subscriptions across a reorg', () => {
  const dirs: string[] = [];
  let chainA: GeneratedChain;
  let chainB: GeneratedChain;
  let node: TestChain;
  let server: WsServer;
  let subscriptions: SubscriptionManager;

  beforeAll(async () => {
    const gen = (blocks: number, seed: number) => {
      const out = tempDir();
      dirs.push(out);
      return generateChain({ blocks, txsPerBlock: 6, accounts: 8, pow: true, seed, outDir: out });
    };
    chainA = await gen(3, 1);
    chainB = await gen(5, 2);
    node = await openTestChain({ genesis: chainA.genesisPath });
    const s = node.services;
    subscriptions = new SubscriptionManager(
      chainSubscriptionSource(s.chain, (block, full) => blockAnswerOf(s, block, full).json),
    );
    server = await startWsServer({
      host: '127.0.0.1',
      port: 0,
      dispatcher: createDispatcher({
        methods: allMethods,
        alwaysEnabled: subscriptionMethods,
        enabledGroups: ['ETH'],
        maxBatchSize: 0,
      }),
      services: s,
      maxFrameSize: 1 << 20,
      maxActiveConnections: 10,
      hostAllowlist: ['*'],
      subscriptions,
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    subscriptions?.close();
    await node?.close();
    for (const d of dirs) removeDir(d);
  });

  async function importFile(path: string): Promise<void> {
    // The node's own importer (seals of the generated proof-of-work chain are not real: not checked).
    const { common, importer } = node.services;
    for (const { rlp } of readBlockFile(path)) {
      await importer.importBlock(createBlockFromRLP(rlp, { common, setHardfork: true }));
    }
  }

  /** Everything a client receives until it has been quiet for a while. */
  async function drain(c: Client): Promise<Array<{ params: { subscription: string; result: never } }>> {
    const out = [];
    for (;;) {
      try {
        out.push(await c.next(500));
      } catch {
        return out;
      }
    }
  }

  it('sends the new branch in order and the old branch logs as removed', async () => {
    const c = await Client.connect(`ws://127.0.0.1:${server.port}`);
    const heads = (await c.call('eth_subscribe', ['newHeads'])).result as string;
    const logs = (await c.call('eth_subscribe', ['logs', {}])).result as string;

    await importFile(chainA.chainPath);
    const first = await drain(c);
    const headsA = first.filter((m) => m.params.subscription === heads).map((m) => m.params.result as Log);
    const logsA = first.filter((m) => m.params.subscription === logs).map((m) => m.params.result as Log);
    expect(headsA.map((h) => h.number)).toEqual(['0x1', '0x2', '0x3']);
    expect(headsA[2]?.hash).toBe(chainA.headHash);
    expect(logsA.length).toBeGreaterThan(0);
    expect(logsA.every((l) => l.removed === false)).toBe(true);
    // The notifications carry the same logs eth_getLogs answers.
    expect((await c.call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x3' }])).result).toEqual(logsA);

    await importFile(chainB.chainPath);
    const second = await drain(c);
    const headsB = second.filter((m) => m.params.subscription === heads).map((m) => m.params.result as Log);
    const logsB = second.filter((m) => m.params.subscription === logs).map((m) => m.params.result as Log);
    // B's first three blocks tie or trail A; its fourth takes over, announced with the three before it.
    expect(headsB.map((h) => h.number)).toEqual(['0x1', '0x2', '0x3', '0x4', '0x5']);
    expect(headsB[4]?.hash).toBe(chainB.headHash);
    for (let i = 1; i < headsB.length; i++) {
      expect(headsB[i]?.parentHash).toBe(headsB[i - 1]?.hash);
    }

    const removed = logsB.filter((l) => l.removed);
    const added = logsB.filter((l) => !l.removed);
    expect(logsB.slice(0, removed.length)).toEqual(removed);
    const key = (l: Log) => `${l.blockHash}/${l.logIndex}`;
    expect(removed.map(key).sort()).toEqual(logsA.map(key).sort());
    for (const l of removed) {
      expect(l).toEqual({ ...logsA.find((a) => key(a) === key(l)), removed: true });
    }
    expect(added).toEqual((await c.call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x5' }])).result);
    c.close();
  }, 60_000);
});
