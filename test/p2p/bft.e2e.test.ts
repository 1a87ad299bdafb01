/**
 * BFT networks of real `bin/alder` processes on 127.0.0.1, peered by static nodes.
 *
 * QBFT, one network for every assertion: four validators finalise a block every period and a
 * transaction sent to one lands on all; the proposer of the next block is killed mid-round and the
 * others change round and finalise within the round timeout; with a second validator stopped
 * production halts without a fork and resumes when it returns; a fifth node joins late, syncs, and
 * every committed seal it stored verifies; a majority of qbft_proposeValidatorVote adds it to the
 * validators, then another majority removes the dead one.
 *
 * IBFT 2.0: four validators finalise blocks, and keep finalising with one of them down.
 */
import { RLP } from '@ethereumjs/rlp';
import { parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { bftGenesis } from '../../src/cli/devNetwork.js';
import { decodeExtraData } from '../../src/consensus/bft/extraData.js';
import { hashWithExtraForm, recoverSealer } from '../../src/consensus/bft/hashing.js';
import { FUNDED, testKey } from '../clique/helpers.js';
import { rpc } from '../helpers/node.js';
import { blockHash, blockNumber, hex, type NetNode, TestNetwork, until } from './helpers.js';

const CHAIN_ID = 4343;
const alloc = { [FUNDED.address.slice(2)]: { balance: '0x3635c9adc5dea00000' } };
const API = '--rpc-http-api=ETH,NET,WEB3,TXPOOL,ADMIN,DEBUG,QBFT,IBFT';

function startValidators(net: TestNetwork, nodes: NetNode[]): Promise<unknown> {
  for (const n of nodes)
    net.staticNodes(
      n,
      net.nodes.filter((o) => o !== n),
    );
  return Promise.all(nodes.map((n) => net.start(n)));
}

const url = (n: NetNode) => n.proc?.url as string;
const kill = async (n: NetNode) => {
  const proc = n.proc;
  if (!proc?.child.pid) return;
  const exited = new Promise((r) => proc.child.once('exit', r));
  process.kill(proc.child.pid, 'SIGKILL');
  await exited;
  n.proc = undefined;
};

/** The validators whose committed seals the stored header of block `n` carries. */
async function sealersOf(node: string, n: bigint): Promise<string[]> {
  const raw = RLP.decode(
    await rpc<string>(node, 'debug_getRawHeader', [`0x${n.toString(16)}`]),
  ) as Uint8Array[];
  const extra = decodeExtraData('qbft', raw[12] as Uint8Array);
  const digest = hashWithExtraForm('qbft', raw, 'noSeals', extra);
  return extra.seals.map((s) => recoverSealer(s, digest));
}

async function heads(nodes: NetNode[]): Promise<bigint[]> {
  return Promise.all(nodes.map((n) => blockNumber(url(n))));
}

async function sameChain(nodes: NetNode[], upTo: bigint): Promise<void> {
  for (let n = 1n; n <= upTo; n++) {
    const hashes = await Promise.all(nodes.map((x) => blockHash(url(x), n)));
    expect(new Set(hashes).size, `block ${n}`).toBe(1);
  }
}

describe('QBFT network of four validators', () => {
  const keys = ['qbft-a', 'qbft-b', 'qbft-c', 'qbft-d'].map(testKey);
  const fifth = testKey('qbft-e');
  const net = new TestNetwork(
    bftGenesis(
      'qbft',
      keys.map((k) => k.address),
      { chainId: CHAIN_ID, blockPeriodSeconds: 1, requestTimeoutSeconds: 1, alloc },
    ),
  );
  const nodes: NetNode[] = [];
  afterAll(() => net.stopAll(), 60_000);

  it('finalises a block every period and a transaction sent to one node lands on all', async () => {
    for (const k of keys) nodes.push(await net.add(k.key, [API]));
    await startValidators(net, nodes);
    const t0 = Date.now();
    await until(
      'block 4 on all',
      async () => ((await heads(nodes)).every((h) => h >= 4n) ? true : undefined),
      30_000,
    );
    const first = await rpc<{ timestamp: string }>(url(nodes[0] as NetNode), 'eth_getBlockByNumber', [
      '0x2',
      false,
    ]);
    const fourth = await rpc<{ timestamp: string }>(url(nodes[0] as NetNode), 'eth_getBlockByNumber', [
      '0x4',
      false,
    ]);
    // One block per second once the validators are connected.
    expect(Number(fourth.timestamp) - Number(first.timestamp)).toBeLessThanOrEqual(3);
    expect(Date.now() - t0).toBeLessThan(30_000);
    await sameChain(nodes, 4n);

    const account = privateKeyToAccount(hex(FUNDED.key) as `0x${string}`);
    const raw = await account.signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      nonce: 0,
      to: '0x00000000000000000000000000000000000c0ffe',
      value: 1234n,
      gas: 21000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
    });
    const hash = await rpc<string>(url(nodes[2] as NetNode), 'eth_sendRawTransaction', [raw]);
    const receipts = await Promise.all(
      nodes.map((n) =>
        until(
          'receipt',
          async () =>
            (await rpc<{ blockHash: string; status: string } | null>(url(n), 'eth_getTransactionReceipt', [
              hash,
            ])) ?? undefined,
          15_000,
        ),
      ),
    );
    expect(new Set(receipts.map((r) => r.blockHash)).size).toBe(1);
    expect(receipts[0]?.status).toBe('0x1');
  }, 60_000);

  it('the proposer killed mid-round: a round change and the next block within the round timeout', async () => {
    const a = nodes[0] as NetNode;
    // The next block's round-0 proposer is the validator after the head's proposer.
    const head = await rpc<{ number: string; miner: string }>(url(a), 'eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    const validators = keys.map((k) => k.address.toLowerCase()).sort();
    const next = validators[(validators.indexOf(head.miner.toLowerCase()) + 1) % validators.length];
    const proposer = nodes.find((n) => keys[nodes.indexOf(n)]?.address.toLowerCase() === next) as NetNode;
    const height = BigInt(head.number);
    await kill(proposer);
    const killedAt = Date.now();
    const rest = nodes.filter((n) => n !== proposer);
    await until('the next block without its proposer', async () =>
      (await heads(rest)).every((h) => h > height) ? true : undefined,
    );
    // Block period (1 s) + round 0's timeout (1 s) + the proposal of round 1, with slack for a busy CI.
    expect(Date.now() - killedAt).toBeLessThan(6_000);
    const block = await rpc<{ miner: string }>(url(rest[0] as NetNode), 'eth_getBlockByNumber', [
      `0x${(height + 1n).toString(16)}`,
      false,
    ]);
    expect(block.miner.toLowerCase()).not.toBe(next);
    // The three keep finalising.
    await until('three more blocks', async () =>
      (await heads(rest)).every((h) => h >= height + 4n) ? true : undefined,
    );
    await sameChain(rest, height + 4n);
    nodes.splice(nodes.indexOf(proposer), 1);
    nodes.push(proposer);
  }, 60_000);

  it('two validators down: production halts without a fork and resumes when one returns', async () => {
    const [a, b, c] = nodes as [NetNode, NetNode, NetNode];
    await c.proc?.stop();
    c.proc = undefined;
    await new Promise((r) => setTimeout(r, 1_500));
    const halted = await heads([a, b]);
    // Two periods without a block: halted (the rounds' timers double meanwhile, so keep it short).
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await heads([a, b])).toEqual(halted);
    expect(halted[0]).toBe(halted[1]);
    await net.start(c);
    const base = halted[0] as bigint;
    await until(
      'resumed',
      async () => ((await heads([a, b, c])).every((h) => h >= base + 2n) ? true : undefined),
      40_000,
    );
    await sameChain([a, b, c], base + 2n);
  }, 90_000);

  it('a fifth node joins late, syncs, and every committed seal it stored verifies', async () => {
    const [a, b, c] = nodes as [NetNode, NetNode, NetNode];
    const e = await net.add(fifth.key, [API]);
    net.staticNodes(e, [a, b, c]);
    await net.start(e);
    const target = await blockNumber(url(a));
    await until(
      'the late node synced',
      async () => ((await blockNumber(url(e))) >= target ? true : undefined),
      30_000,
    );
    await sameChain([a, e], target);
    for (let n = 1n; n <= target; n++) {
      const sealers = new Set(await sealersOf(url(e), n));
      const validators = keys.map((k) => k.address.toLowerCase());
      expect(sealers.size, `seals of block ${n}`).toBeGreaterThanOrEqual(
        Math.ceil((2 * validators.length) / 3),
      );
      for (const s of sealers) expect(validators).toContain(s);
    }
  }, 60_000);

  it('a fifth validator is voted in by a majority, then a dead one voted out', async () => {
    const [a, b, c] = nodes as [NetNode, NetNode, NetNode];
    const dead = keys
      .find((k) => !nodes.slice(0, 3).some((n) => n.key === k.key))
      ?.address.toLowerCase() as string;
    const e = net.nodes[net.nodes.length - 1] as NetNode;
    const newcomer = fifth.address.toLowerCase();
    for (const n of [a, b, c])
      expect(await rpc(url(n), 'qbft_proposeValidatorVote', [newcomer, true])).toBe(true);
    await until(
      'the fifth validator in',
      async () => {
        const v = await rpc<string[]>(url(a), 'qbft_getValidatorsByBlockNumber', ['latest']);
        return v.includes(newcomer) ? v : undefined;
      },
      30_000,
    );
    for (const n of [a, b, c]) await rpc(url(n), 'qbft_discardValidatorVote', [newcomer]);
    // Five validators, one of them dead: a quorum is four, so no block is agreed without the newcomer.
    const from = await blockNumber(url(a));
    await until('a block with five validators', async () =>
      (await heads([a, b, c, e])).every((h) => h >= from + 1n) ? true : undefined,
    );
    expect(await sealersOf(url(a), from + 1n)).toContain(newcomer);
    for (const n of [a, b, c])
      expect(await rpc(url(n), 'qbft_proposeValidatorVote', [dead, false])).toBe(true);
    const after = await until(
      'the dead validator out',
      async () => {
        const v = await rpc<string[]>(url(a), 'qbft_getValidatorsByBlockNumber', ['latest']);
        return v.includes(dead) ? undefined : v;
      },
      30_000,
    );
    expect(after).toHaveLength(4);
    expect(after).toContain(newcomer);
    const last = await blockNumber(url(a));
    await until('a block after the vote', async () =>
      (await heads([a, b, c, e])).every((h) => h >= last + 1n) ? true : undefined,
    );
    await sameChain([a, b, c, e], last + 1n);
  }, 90_000);
});

describe('IBFT 2.0 network of four validators', () => {
  const keys = ['ibft-a', 'ibft-b', 'ibft-c', 'ibft-d'].map(testKey);
  const net = new TestNetwork(
    bftGenesis(
      'ibft2',
      keys.map((k) => k.address),
      { chainId: CHAIN_ID, blockPeriodSeconds: 1, requestTimeoutSeconds: 1, alloc },
    ),
  );
  afterAll(() => net.stopAll(), 60_000);

  it('finalises blocks, and keeps finalising with one validator down', async () => {
    const nodes: NetNode[] = [];
    for (const k of keys) nodes.push(await net.add(k.key, [API]));
    await startValidators(net, nodes);
    await until(
      'block 3 on all',
      async () => ((await heads(nodes)).every((h) => h >= 3n) ? true : undefined),
      30_000,
    );
    await sameChain(nodes, 3n);
    const down = nodes[3] as NetNode;
    await kill(down);
    const rest = nodes.slice(0, 3);
    const from = (await heads(rest)).reduce((x, y) => (x > y ? x : y));
    // Four blocks: the dead validator's turn comes once and is passed over by a round change.
    await until(
      'four more blocks',
      async () => ((await heads(rest)).every((h) => h >= from + 4n) ? true : undefined),
      30_000,
    );
    await sameChain(rest, from + 4n);
    // The dead validator's turn came and went by a round change: a block agreed in round 1.
    const rounds: number[] = [];
    for (let n = from + 1n; n <= from + 4n; n++) {
      const b = await rpc<{ extraData: string }>(url(rest[0] as NetNode), 'eth_getBlockByNumber', [
        `0x${n.toString(16)}`,
        false,
      ]);
      rounds.push(decodeExtraData('ibft2', Buffer.from(b.extraData.slice(2), 'hex')).round);
    }
    expect(rounds.some((r) => r > 0)).toBe(true);
  }, 60_000);
});
