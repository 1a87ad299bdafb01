import { afterEach, describe, expect, it } from 'vitest';
import { createNetwork, heads, type InProcessNetwork, until } from './inProcess.js';

const fast = { blockPeriodMilliseconds: 50, requestTimeoutSeconds: 0.4 };

describe.each(['qbft', 'ibft2'] as const)('%s round state machine (4 validators in process)', (variant) => {
  let net: InProcessNetwork | undefined;
  afterEach(async () => {
    await net?.stop();
    net = undefined;
  });

  it('finalises blocks on every node, keeps going with one down, halts with two down and resumes', async () => {
    net = createNetwork(variant, 4, fast);
    const n = net;
    for (const node of n.nodes) n.start(node);
    await until(() => heads(n).every((h) => h >= 3n), 5000, 'three blocks on every node');
    // Same blocks everywhere (seal sets may differ, the agreed header does not).
    const at = (i: number, num: number) => n.nodes[i]?.chain[num]?.header.parentHash.toString();
    for (let i = 1; i < 4; i++) expect(at(i, 3)).toBe(at(0, 3));

    const [a, b] = n.nodes as [(typeof n.nodes)[0], (typeof n.nodes)[0]];
    await n.halt(a);
    const base = heads(n)[1] as bigint;
    await until(
      () => n.nodes.slice(1).every((x) => x.chain.length - 1 >= Number(base) + 3),
      10000,
      'three more blocks with one down',
    );

    await n.halt(b);
    await new Promise((r) => setTimeout(r, 300));
    const halted = heads(n).slice(2);
    await new Promise((r) => setTimeout(r, 1200));
    expect(heads(n).slice(2)).toEqual(halted);

    n.start(b);
    await until(
      () => n.nodes.slice(1).every((x) => x.chain.length - 1 >= Number(halted[0]) + 2),
      15000,
      'resumption',
    );
    const last = Math.min(...n.nodes.slice(1).map((x) => x.chain.length - 1));
    for (let num = 1; num <= last; num++) {
      const hs = new Set(n.nodes.slice(1).map((x) => x.chain[num]?.header.parentHash.toString()));
      expect(hs.size).toBe(1);
    }
  }, 30000);
});

describe('QBFT empty-block period', () => {
  it('holds back a proposal without transactions until emptyblockperiodseconds after the parent', async () => {
    const net = createNetwork('qbft', 4, { ...fast, requestTimeoutSeconds: 3, emptyBlockPeriodSeconds: 1 });
    try {
      for (const node of net.nodes) net.start(node);
      await until(() => heads(net).every((h) => h >= 3n), 10000, 'three empty blocks');
      const chain = net.nodes[0]?.chain ?? [];
      // Without the period these blocks come every 50 ms, several in one second (see above).
      for (let n = 2; n <= 3; n++) {
        const gap = (chain[n]?.header.timestamp ?? 0n) - (chain[n - 1]?.header.timestamp ?? 0n);
        expect(gap).toBeGreaterThanOrEqual(1n);
      }
    } finally {
      await net.stop();
    }
  }, 20000);
});
