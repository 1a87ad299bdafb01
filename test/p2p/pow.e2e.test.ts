/**
 * A proof-of-work network of real `bin/alder` processes on 127.0.0.1, on the dev network's Ethash
 * (fixed difficulty). Two miners first mine apart, then peer: the lighter branch reorganises onto the
 * heavier one; mining on both with competing blocks they converge, every block identical on both. A
 * late joiner syncs while a WebSocket `syncing` subscription watches it (eth_syncing while behind, the
 * `false` edge at the end, progress lines in its log) and its receipts match block by block. Two more
 * nodes join with --bootnodes only and find the others through discovery v4. Alder and Alder negotiate
 * eth/69; a hand-written eth/69 client reads a Receipts answer without blooms.
 */
import { createHash } from 'node:crypto';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Peer, RLPx } from '@ethereumjs/devp2p';
import { RLP } from '@ethereumjs/rlp';
import * as snappy from 'snappyjs';
import { parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ForkIdService } from '../../src/chain/forkId.js';
import { createCommon, parseGenesis } from '../../src/config/genesis.js';
import { DEV_GENESIS } from '../../src/config/networks/dev.js';
import { EthashCaches } from '../../src/consensus/ethash/caches.js';
import { customCrypto } from '../../src/crypto/index.js';
import { nodePublicKey } from '../../src/crypto/nodeKey.js';
import { testKey } from '../clique/helpers.js';
import { freePort, removeDir, rpc, tempDir } from '../helpers/node.js';
import { blockNumber, type NetNode, TestNetwork, until } from './helpers.js';

const COINBASE_A = '0x00000000000000000000000000000000000000aa';
const COINBASE_B = '0x00000000000000000000000000000000000000bb';
/** The dev network's prefunded test keys (public, for development chains only). */
const DEV_KEYS = [
  '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
  '0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f',
] as const;
/** Init code that stores 42 in memory, logs it (LOG0, 32 bytes) and deploys nothing. */
const LOGGING_INIT = '0x602a60005260206000a000';

const net = new TestNetwork(DEV_GENESIS);
/** Epoch 0's Ethash cache, computed once here and copied into each node that should not redo it. */
const ethashDir = tempDir('alder-pow-ethash-');

beforeAll(async () => {
  await new EthashCaches(ethashDir).get(0);
}, 120_000);

async function addNode(name: string, extra: string[], withCache = true): Promise<NetNode> {
  const node = await net.add(testKey(name).key, extra, { discovery: true });
  if (withCache) cpSync(ethashDir, join(node.dir, 'ethash'), { recursive: true });
  return node;
}
const mining = (coinbase: string) => ['--miner-enabled', `--miner-coinbase=${coinbase}`];

afterAll(async () => {
  // P2P_TEST_LOGS=<dir> keeps every node's output for a failure's post-mortem.
  const dir = process.env.P2P_TEST_LOGS;
  if (dir)
    for (const [i, n] of net.nodes.entries())
      writeFileSync(join(dir, `pow-node-${i}.log`), n.proc?.output() ?? '');
  await net.stopAll();
  removeDir(ethashDir);
}, 60_000);

interface BlockJson {
  hash: string;
  number: string;
  miner: string;
  stateRoot: string;
  receiptsRoot: string;
  totalDifficulty: string;
  transactions: string[];
}

const q = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;
/** A quantity as RLP bytes (big-endian, no leading zeros). */
const u = (n: bigint | number): Uint8Array => {
  const h = BigInt(n).toString(16);
  return BigInt(n) === 0n
    ? new Uint8Array()
    : Uint8Array.from(Buffer.from(h.length % 2 ? `0${h}` : h, 'hex'));
};
const num = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).toString('hex') || '0'}`);
const block = (url: string, n: bigint | number | 'latest') =>
  rpc<BlockJson>(url, 'eth_getBlockByNumber', [n === 'latest' ? n : q(n), false]);
const url = (n: NetNode) => n.proc?.url as string;

/** Stops the miner and waits until the head stays put for a moment (a block being sealed lands). */
async function stopMining(node: NetNode): Promise<BlockJson> {
  await rpc(url(node), 'miner_stop');
  let last = await block(url(node), 'latest');
  for (;;) {
    await new Promise((r) => setTimeout(r, 700));
    const now = await block(url(node), 'latest');
    if (now.hash === last.hash) return now;
    last = now;
  }
}

describe('two proof-of-work miners', () => {
  let a: NetNode;
  let b: NetNode;
  const sent: string[] = [];

  it('mine apart, then peer: the lighter branch reorganises onto the heavier one', async () => {
    a = await addNode('pow-a', mining(COINBASE_A));
    b = await addNode('pow-b', mining(COINBASE_B));
    await Promise.all([net.start(a), net.start(b)]);
    await until(
      'both mine',
      async () => {
        const [ha, hb] = await Promise.all([blockNumber(url(a)), blockNumber(url(b))]);
        return ha >= 1n && hb >= 1n ? true : undefined;
      },
      60_000,
    );
    const bHead = await stopMining(b);
    await until(
      'a mines ahead',
      async () => ((await blockNumber(url(a))) >= BigInt(bHead.number) + 2n ? true : undefined),
      60_000,
    );
    const aHead = await stopMining(a);
    expect(BigInt(aHead.totalDifficulty)).toBeGreaterThan(BigInt(bHead.totalDifficulty));
    const [a1, b1] = await Promise.all([block(url(a), 1), block(url(b), 1)]);
    expect(a1.hash).not.toBe(b1.hash);

    expect(await rpc(url(b), 'admin_addPeer', [a.enode])).toBe(true);
    await until('b reorganises onto a', async () =>
      (await block(url(b), 'latest')).hash === aHead.hash ? true : undefined,
    );
    expect((await block(url(b), 1)).hash).toBe(a1.hash);
    // The abandoned branch is still stored, no longer canonical.
    const old = await rpc<BlockJson | null>(url(b), 'eth_getBlockByHash', [bHead.hash, false]);
    expect(old?.hash).toBe(bHead.hash);
    expect((await block(url(b), BigInt(bHead.number))).hash).not.toBe(bHead.hash);
    // Two Alder nodes speak eth/69.
    const peers = await rpc<Array<{ caps: string[]; protocols: { eth: { version: number } } }>>(
      url(a),
      'admin_peers',
    );
    expect(peers).toHaveLength(1);
    expect(peers[0]?.caps).toEqual(['eth/69']);
    expect(peers[0]?.protocols.eth.version).toBe(69);
  }, 150_000);

  it('mining on both with competing blocks, they converge on identical blocks', async () => {
    const start = await blockNumber(url(a));
    // Transactions (transfers and a contract creation that logs) sent to b, mined by either.
    for (const [i, key] of DEV_KEYS.entries()) {
      const account = privateKeyToAccount(key);
      for (let nonce = 0; nonce < 3; nonce++) {
        const raw = await account.signTransaction({
          chainId: 1337,
          type: 'eip1559',
          nonce,
          ...(nonce === 1 ? { data: LOGGING_INIT, gas: 100_000n } : { to: COINBASE_A, gas: 21_000n }),
          value: nonce === 1 ? 0n : BigInt(1000 + i),
          maxFeePerGas: parseGwei('10'),
          maxPriorityFeePerGas: parseGwei('1'),
        });
        sent.push(await rpc<string>(url(b), 'eth_sendRawTransaction', [raw]));
      }
    }
    await Promise.all([rpc(url(a), 'miner_start'), rpc(url(b), 'miner_start')]);
    // Run until the canonical chain since the restart holds blocks of both miners and every transaction.
    await until(
      'blocks of both miners and every receipt',
      async () => {
        const head = await blockNumber(url(a));
        if (head < start + 4n) return undefined;
        const miners = new Set<string>();
        for (let n = start + 1n; n <= head; n++) miners.add((await block(url(a), n)).miner);
        if (!miners.has(COINBASE_A) || !miners.has(COINBASE_B)) return undefined;
        for (const h of sent) if (!(await rpc(url(a), 'eth_getTransactionReceipt', [h]))) return undefined;
        return true;
      },
      90_000,
    );
    // Every block weighs the same (fixed difficulty), so two heads of one height are a tie that only
    // a further block breaks, as on any proof-of-work network: b stops first, and a mines on until b
    // has taken a block of a's above everything b mined.
    const bLast = await stopMining(b);
    await until('a block of a above the last one of b, on both', async () => {
      const [ha, hb] = await Promise.all([block(url(a), 'latest'), block(url(b), 'latest')]);
      return BigInt(ha.number) > BigInt(bLast.number) && ha.hash === hb.hash ? true : undefined;
    });
    await stopMining(a);
    const head = await until('the same head on both', async () => {
      const [ha, hb] = await Promise.all([block(url(a), 'latest'), block(url(b), 'latest')]);
      return ha.hash === hb.hash ? BigInt(ha.number) : undefined;
    });
    for (let n = 0n; n <= head; n++) {
      const [x, y] = await Promise.all([block(url(a), n), block(url(b), n)]);
      expect(y.hash, `block ${n}`).toBe(x.hash);
      expect(y.stateRoot, `block ${n}`).toBe(x.stateRoot);
      expect(y.receiptsRoot, `block ${n}`).toBe(x.receiptsRoot);
      expect(y.totalDifficulty, `block ${n}`).toBe(x.totalDifficulty);
    }
  }, 150_000);

  it('a late joiner syncs: the syncing subscription, eth_syncing while behind, every receipt', async () => {
    const wsPort = await freePort();
    // Without the cache: its first block waits while the node computes it, so the sync is seen running.
    const late = await addNode(
      'pow-late',
      ['--rpc-ws-enabled', '--rpc-ws-host=127.0.0.1', `--rpc-ws-port=${wsPort}`],
      false,
    );
    await net.start(late);
    const target = await block(url(a), 'latest');
    const notes: unknown[] = [];
    const ws = new WebSocket(`ws://127.0.0.1:${wsPort}`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const subscribed = new Promise<string>((resolve) => {
      ws.on('message', (data) => {
        const msg = JSON.parse(String(data));
        if (msg.id === 1) resolve(msg.result);
        else if (msg.method === 'eth_subscription') notes.push(msg.params.result);
      });
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['syncing'] }));
    expect(await subscribed).toMatch(/^0x[0-9a-f]+$/);
    expect(await rpc(url(late), 'eth_syncing')).toBe(false);

    expect(await rpc(url(late), 'admin_addPeer', [a.enode])).toBe(true);
    const first = await until('the syncing notification', async () => notes[0], 30_000);
    expect(first).toEqual({ startingBlock: '0x0', currentBlock: '0x0', highestBlock: target.number });
    // Behind (its first block waits for the node's Ethash cache): eth_syncing reports the range.
    const status = await rpc<Record<string, string>>(url(late), 'eth_syncing');
    expect(Object.keys(status)).toEqual(['startingBlock', 'currentBlock', 'highestBlock']);
    expect(status.startingBlock).toBe('0x0');
    expect(status.highestBlock).toBe(target.number);
    expect(BigInt(status.currentBlock as string)).toBeLessThan(BigInt(target.number));
    await until('the in-sync notification', async () => (notes.includes(false) ? true : undefined), 60_000);
    ws.close();
    expect(notes.at(-1)).toBe(false);
    expect(notes.filter((n) => n === false)).toHaveLength(1);
    expect(await rpc(url(late), 'eth_syncing')).toBe(false);
    expect((await block(url(late), 'latest')).hash).toBe(target.hash);

    // Every block's receipts root and every receipt, as the producer has them.
    let receipts = 0;
    for (let n = 0n; n <= BigInt(target.number); n++) {
      const [x, y] = await Promise.all([block(url(a), n), block(url(late), n)]);
      expect(y.hash).toBe(x.hash);
      expect(y.stateRoot, `block ${n}`).toBe(x.stateRoot);
      expect(y.receiptsRoot, `block ${n}`).toBe(x.receiptsRoot);
      const [rx, ry] = await Promise.all(
        [url(a), url(late)].map((u) => rpc<unknown[]>(u, 'eth_getBlockReceipts', [q(n)])),
      );
      expect(ry, `receipts of block ${n}`).toEqual(rx);
      receipts += rx?.length ?? 0;
    }
    expect(receipts).toBe(sent.length);
    // Progress lines while it ran, not only the edges.
    const out = late.proc?.output() ?? '';
    expect(out).toContain(`Full sync started at block 0, target ${BigInt(target.number)}`);
    expect(out).toMatch(
      new RegExp(`Import reached block \\d+ of ${BigInt(target.number)}, [\\d.]+ blocks/s`),
    );
    expect(out).toContain('In sync at block');
  }, 90_000);

  it('two more nodes join with --bootnodes only and find the network through discovery', async () => {
    // Both know only the late joiner (which found nobody by discovery itself); each must find the
    // other and the late joiner's own peer through it.
    const late = net.nodes[2] as NetNode;
    const joiners: NetNode[] = [];
    for (const name of ['pow-disc-1', 'pow-disc-2'])
      joiners.push(await addNode(name, [`--bootnodes=${late.enode}`]));
    const [d1, d2] = joiners as [NetNode, NetNode];
    await net.start(d1);
    // The bootnode bonds with the first joiner (and connects to it) before the second one asks.
    await until('the bootnode knows the first joiner', async () => {
      const peers = await rpc<Array<{ enode: string }>>(url(late), 'admin_peers');
      return peers.some((p) => p.enode === d1.enode) ? true : undefined;
    });
    await net.start(d2);
    await until(
      'the joiners find each other',
      async () => {
        const peers = await rpc<Array<{ enode: string }>>(url(d1), 'admin_peers');
        return peers.some((p) => p.enode === d2.enode) ? true : undefined;
      },
      45_000,
    );
    await until('a joiner syncs the chain', async () => {
      const [x, y] = await Promise.all([block(url(a), 'latest'), block(url(d2), 'latest')]);
      return x.hash === y.hash ? true : undefined;
    });
  }, 60_000);

  it('an eth/69 client reads status and receipts in the eth/69 form', async () => {
    const spec = parseGenesis(DEV_GENESIS);
    const common = createCommon(spec, { customCrypto: customCrypto() });
    const genesis = await block(url(a), 0);
    const genesisHash = Buffer.from(genesis.hash.slice(2), 'hex');
    const head = await block(url(a), 'latest');
    const messages: Array<[number, Uint8Array]> = [];
    let send: ((code: number, data: Uint8Array) => void) | undefined;
    class Raw {
      constructor(_v: number, _p: Peer, s: (code: number, data: Uint8Array) => void) {
        send = s;
      }
      _handleMessage(code: number, payload: Uint8Array) {
        messages.push([code, payload]);
      }
    }
    const rlpx = new RLPx(new Uint8Array(createHash('sha256').update('pow-69-client').digest()), {
      capabilities: [{ name: 'eth', version: 69, length: 18, constructor: Raw as never }],
      common,
      maxPeers: 1,
    });
    rlpx.events.on('peer:error', () => undefined);
    try {
      const added = new Promise<void>((r) => rlpx.events.once('peer:added', () => r()));
      await rlpx.connect({ id: nodePublicKey(a.key), address: '127.0.0.1', tcpPort: a.p2pPort });
      await added;
      const fork = ForkIdService.of(genesisHash, spec).forkIdAt(BigInt(head.number), 0n);
      const ours = RLP.encode([
        u(69),
        u(1337),
        genesisHash,
        [fork.hash, u(fork.next)],
        u(0),
        u(BigInt(head.number)),
        Buffer.from(head.hash.slice(2), 'hex'),
      ]);
      send?.(0, snappy.compress(ours));
      const statusMsg = await until('status', async () => messages.find(([c]) => c === 0)?.[1], 10_000);
      const theirs = RLP.decode(statusMsg) as Uint8Array[];
      // [version, networkId, genesisHash, forkId, earliestBlock, latestBlock, latestHash]
      expect(theirs).toHaveLength(7);
      expect(Buffer.from(theirs[0] as Uint8Array).toString('hex')).toBe('45');
      expect(Buffer.from(theirs[2] as Uint8Array).equals(genesisHash)).toBe(true);
      expect(Buffer.from(theirs[4] as Uint8Array).length).toBe(0);
      expect(`0x${Buffer.from(theirs[6] as Uint8Array).toString('hex')}`).toBe(head.hash);
      // Receipts of every block holding transactions.
      const withTxs: BlockJson[] = [];
      for (let n = 1n; n <= BigInt(head.number); n++) {
        const b = await block(url(a), n);
        if (b.transactions.length > 0) withTxs.push(b);
      }
      send?.(
        0x0f,
        snappy.compress(RLP.encode([u(5), withTxs.map((b) => Buffer.from(b.hash.slice(2), 'hex'))])),
      );
      const reply = await until('receipts', async () => messages.find(([c]) => c === 0x10)?.[1], 10_000);
      const [id, lists] = RLP.decode(reply) as unknown as [
        Uint8Array,
        Array<Array<Uint8Array[] | Uint8Array>>,
      ];
      expect(Buffer.from(id).toString('hex')).toBe('05');
      expect(lists).toHaveLength(withTxs.length);
      for (const [i, b] of withTxs.entries()) {
        const expected = await rpc<
          Array<{ type: string; status: string; cumulativeGasUsed: string; logs: unknown[] }>
        >(url(a), 'eth_getBlockReceipts', [b.number]);
        const got = lists[i] as unknown as Array<[Uint8Array, Uint8Array, Uint8Array, unknown[]]>;
        expect(got).toHaveLength(expected.length);
        for (const [k, r] of got.entries()) {
          // [tx-type, status, cumulative gas, logs]: four fields, no bloom.
          expect(r).toHaveLength(4);
          const e = expected[k] as (typeof expected)[number];
          expect(num(r[0])).toBe(BigInt(e.type));
          expect(num(r[1])).toBe(BigInt(e.status));
          expect(num(r[2])).toBe(BigInt(e.cumulativeGasUsed));
          expect(r[3]).toHaveLength(e.logs.length);
        }
      }
    } finally {
      rlpx.destroy();
    }
  }, 30_000);
});
