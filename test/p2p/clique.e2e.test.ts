/**
 * Three Clique signers as separate `bin/alder` processes on 127.0.0.1, each knowing the others as
 * static nodes: they seal in turn, a transaction sent to one is mined and readable on all three, a
 * majority of clique_propose votes adds a fourth signer that then seals, a killed signer leaves the
 * others sealing and catches up when restarted, and a late non-signing node syncs from genesis.
 */

import { parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { cliqueGenesis, FUNDED, testKey } from '../clique/helpers.js';
import { rpc } from '../helpers/node.js';
import { blockHash, blockNumber, hex, type NetNode, TestNetwork, until } from './helpers.js';

const KEYS = [testKey('p2p-a'), testKey('p2p-b'), testKey('p2p-c')];
const FOURTH = testKey('p2p-d');
const net = new TestNetwork(
  cliqueGenesis(
    KEYS.map((k) => k.address),
    { blockperiodseconds: 1 },
  ),
);

afterAll(() => net.stopAll(), 60_000);

describe('three Clique signers', () => {
  const nodes: NetNode[] = [];

  it('connect and seal in turn', async () => {
    for (const k of KEYS) nodes.push(await net.add(k.key));
    for (const n of nodes)
      net.staticNodes(
        n,
        nodes.filter((o) => o !== n),
      );
    await Promise.all(nodes.map((n) => net.start(n)));
    const urls = nodes.map((n) => n.proc?.url as string);
    await until('two peers each', async () => {
      const counts = await Promise.all(urls.map((u) => rpc<string>(u, 'net_peerCount')));
      return counts.every((c) => c === '0x2') ? true : undefined;
    });
    await until('block 6 on all', async () => {
      const heights = await Promise.all(urls.map(blockNumber));
      return heights.every((h) => h >= 6n) ? true : undefined;
    });
    // Same chain everywhere, sealed by more than one signer.
    const h5 = await Promise.all(urls.map((u) => blockHash(u, 5n)));
    expect(new Set(h5).size).toBe(1);
    const metrics = await rpc<Array<{ address: string; proposedBlockCount: string }>>(
      urls[0] as string,
      'clique_getSignerMetrics',
      [],
    );
    expect(metrics.filter((m) => m.proposedBlockCount !== '0x0').length).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it('a transaction sent to one node is mined and its receipt is readable on all three', async () => {
    const urls = nodes.map((n) => n.proc?.url as string);
    const account = privateKeyToAccount(hex(FUNDED.key) as `0x${string}`);
    const raw = await account.signTransaction({
      chainId: 4242,
      type: 'eip1559',
      nonce: 0,
      to: '0x00000000000000000000000000000000000c0ffe',
      value: 1000n,
      gas: 21000n,
      maxFeePerGas: parseGwei('20'),
      maxPriorityFeePerGas: parseGwei('1'),
    });
    const hash = await rpc<string>(urls[1] as string, 'eth_sendRawTransaction', [raw]);
    // Out-of-turn signers may seal competing blocks at one height for a moment: the three nodes must
    // come to hold the receipt in the same block.
    const receipts = await until('the same receipt on all three nodes', async () => {
      const found = await Promise.all(
        urls.map((u) =>
          rpc<{ blockHash: string; status: string } | null>(u, 'eth_getTransactionReceipt', [hash]),
        ),
      );
      if (found.some((r) => r === null)) return undefined;
      const all = found as { blockHash: string; status: string }[];
      return new Set(all.map((r) => r.blockHash)).size === 1 ? all : undefined;
    });
    expect(receipts).toHaveLength(3);
    expect(receipts[0]?.status).toBe('0x1');
  }, 60_000);

  it('admin_peers and admin_nodeInfo describe the network', async () => {
    const url = nodes[0]?.proc?.url as string;
    const peers = await rpc<Array<Record<string, unknown>>>(url, 'admin_peers');
    expect(peers).toHaveLength(2);
    const ids = peers.map((p) => p.enode).sort();
    expect(ids).toEqual([nodes[1]?.enode, nodes[2]?.enode].sort());
    const p = peers[0] as {
      caps: string[];
      version: string;
      protocols: { eth: { version: number } };
      id: string;
    };
    expect(p.caps).toEqual(['eth/69']);
    expect(p.version).toBe('0x5');
    expect(p.protocols.eth.version).toBe(69);
    expect(p.id).toMatch(/^0x[0-9a-f]{128}$/);
    const info = await rpc<Record<string, unknown>>(url, 'admin_nodeInfo');
    expect(Object.keys(info)).toEqual([
      'enode',
      'ip',
      'listenAddr',
      'id',
      'name',
      'ports',
      'protocols',
      'activeFork',
    ]);
    expect(info.enode).toBe(nodes[0]?.enode);
    expect(await rpc(url, 'net_enode')).toBe(nodes[0]?.enode);
    expect(await rpc(url, 'net_listening')).toBe(true);
    const services = await rpc<Record<string, { port: string }>>(url, 'net_services');
    expect(services.p2p?.port).toBe(String(nodes[0]?.p2pPort));
    expect(services.jsonrpc?.port).toBe(String(nodes[0]?.proc?.port));
  });

  it('a majority of clique_propose adds a fourth signer that then seals', async () => {
    const urls = nodes.map((n) => n.proc?.url as string);
    for (const u of urls.slice(0, 2)) await rpc(u, 'clique_propose', [FOURTH.address, true]);
    await until(
      'fourth signer voted in',
      async () => {
        const signers = await rpc<string[]>(urls[2] as string, 'clique_getSigners', []);
        return signers.map((s) => s.toLowerCase()).includes(FOURTH.address.toLowerCase()) ? true : undefined;
      },
      45_000,
    );
    for (const u of urls.slice(0, 2)) await rpc(u, 'clique_discard', [FOURTH.address]);
    const d = await net.add(FOURTH.key);
    net.staticNodes(d, nodes);
    nodes.push(d);
    await net.start(d);
    const durl = d.proc?.url as string;
    await until(
      'fourth seals a block',
      async () => {
        const m = await rpc<Array<{ address: string; proposedBlockCount: string }>>(
          durl,
          'clique_getSignerMetrics',
          [],
        );
        const mine = m.find((x) => x.address.toLowerCase() === FOURTH.address.toLowerCase());
        return mine && mine.proposedBlockCount !== '0x0' ? true : undefined;
      },
      60_000,
    );
  }, 120_000);

  it('a killed signer leaves the others sealing; restarted, it catches up', async () => {
    const victim = nodes[2] as NetNode;
    const others = nodes.filter((n) => n !== victim).map((n) => n.proc?.url as string);
    await victim.proc?.stop();
    const before = await blockNumber(others[0] as string);
    await until(
      'others keep sealing',
      async () => ((await blockNumber(others[0] as string)) >= before + 4n ? true : undefined),
      45_000,
    );
    await net.start(victim);
    const vurl = victim.proc?.url as string;
    await until(
      'restarted node catches up',
      async () => {
        const [mine, theirs] = await Promise.all([blockNumber(vurl), blockNumber(others[0] as string)]);
        if (mine < theirs - 1n) return undefined;
        // biome-ignore lint/complexity/useMathMinMax: bigints
        const n = mine < theirs ? mine : theirs;
        return (await blockHash(vurl, n)) === (await blockHash(others[0] as string, n)) ? true : undefined;
      },
      60_000,
    );
  }, 150_000);

  it('a late non-signing node syncs the whole chain from genesis', async () => {
    const late = await net.add(testKey('p2p-late').key);
    net.staticNodes(late, [nodes[0] as NetNode]);
    await net.start(late);
    const lurl = late.proc?.url as string;
    const src = nodes[0]?.proc?.url as string;
    const target = await blockNumber(src);
    await until(
      'late node reaches the head',
      async () => ((await blockNumber(lurl)) >= target ? true : undefined),
      60_000,
    );
    for (const n of [1n, target / 2n, target]) {
      const [a, b] = await Promise.all(
        [lurl, src].map((u) =>
          rpc<{ hash: string; stateRoot: string }>(u, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]),
        ),
      );
      expect(a.hash).toBe(b.hash);
      expect(a.stateRoot).toBe(b.stateRoot);
    }
    expect(await rpc(lurl, 'eth_syncing')).toBe(false);
  }, 90_000);
});
