/**
 * Bad messages against a running in-process network: forged, badly signed, replayed, for the wrong
 * height or round, and a proposer that equivocates. None may stop the honest nodes or split them.
 */
import type { Block } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { afterEach, describe, expect, it } from 'vitest';
import type { Rlp } from '../../../src/consensus/bft/protocol/messages.js';
import { type BftChainOps, selectProposer } from '../../../src/consensus/bft/round/ops.js';
import {
  addressOf,
  chainHash,
  createNetwork,
  heads,
  type InProcessNetwork,
  keyOf,
  until,
} from './inProcess.js';

describe.each(['qbft', 'ibft2'] as const)('%s under bad messages', (variant) => {
  let net: InProcessNetwork | undefined;
  afterEach(async () => {
    await net?.stop();
    net = undefined;
  });

  it('ignores forged, replayed and out-of-place messages and survives an equivocating proposer', async () => {
    net = createNetwork(variant, 4, { blockPeriodMilliseconds: 50, requestTimeoutSeconds: 0.3 });
    const n = net;
    const [honest0, honest1, honest2, byz] = n.nodes as [
      (typeof n.nodes)[0],
      (typeof n.nodes)[0],
      (typeof n.nodes)[0],
      (typeof n.nodes)[0],
    ];
    const byzOps = (byz as unknown as { ops: BftChainOps }).ops;
    byz.up = false;
    for (const node of [honest0, honest1, honest2]) n.start(node);
    const stranger = keyOf(99);
    const codec = n.codec;
    const head = () => (honest1.chain[honest1.chain.length - 1] as Block).header;
    const equivocated = new Set<bigint>();
    let forged = false;
    let done = false;
    const attack = (async () => {
      while (!done) {
        const parent = head();
        const height = parent.number + 1n;
        const id = { height, round: 0 };
        if (!forged && height >= 2n) {
          forged = true;
          const target = honest0;
          const digest = new Uint8Array(32).fill(9);
          // Signed by a key outside the validator set.
          n.inject(
            target,
            codec.codes.prepare,
            codec.encode(codec.createPrepare(stranger, id, digest)),
            byz.address,
          );
          // A validator's prepare with its signature broken, and one for a past height.
          const good = codec.encode(codec.createPrepare(byz.key, id, digest));
          const top = RLP.decode(good) as Rlp[];
          const sig = Uint8Array.from(top[1] as Uint8Array);
          sig[64] = 9;
          n.inject(target, codec.codes.prepare, RLP.encode([top[0] as Rlp[], sig]), byz.address);
          n.inject(
            target,
            codec.codes.prepare,
            codec.encode(codec.createPrepare(byz.key, { height: 1n, round: 0 }, digest)),
            byz.address,
          );
          // Garbage, and an unknown code.
          n.inject(target, codec.codes.commit, Uint8Array.of(0xc3, 0x01, 0x02), byz.address);
          n.inject(target, 11, good, byz.address);
          // A round change for round 7 by a single validator moves no one; replaying it changes nothing.
          const rc = codec.encode(codec.createRoundChange(byz.key, { height, round: 7 }));
          n.inject(target, codec.codes.roundChange, rc, byz.address);
          n.inject(target, codec.codes.roundChange, rc, byz.address);
          // A commit whose seal is not its sender's.
          n.inject(
            target,
            codec.codes.commit,
            codec.encode(codec.createCommit(byz.key, id, digest, new Uint8Array(65))),
            byz.address,
          );
        }
        const proposer = selectProposer(byzOps.proposerOf(parent), n.validators, 0);
        if (proposer === byz.address && !equivocated.has(height)) {
          equivocated.add(height);
          // Two different blocks for the same round, each to a different part of the network.
          const a = await byzOps.createBlock(parent, 0, parent.timestamp + 1n);
          const b = await byzOps.createBlock(parent, 0, parent.timestamp + 2n);
          const pa = codec.encode(codec.createProposal(byz.key, id, a));
          const pb = codec.encode(codec.createProposal(byz.key, id, b));
          n.inject(honest0, codec.codes.proposal, pa, byz.address);
          n.inject(honest1, codec.codes.proposal, pb, byz.address);
          n.inject(honest2, codec.codes.proposal, pb, byz.address);
          n.inject(honest2, codec.codes.proposal, pa, byz.address);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      await until(
        () =>
          equivocated.size >= 2 &&
          heads(n)
            .slice(0, 3)
            .every((h) => h >= 9n),
        25000,
        'nine blocks past two equivocations',
      );
    } finally {
      done = true;
      await attack;
    }
    expect(honest0.controller.stats.invalid).toBeGreaterThanOrEqual(3);
    expect(honest0.controller.stats.duplicates).toBeGreaterThanOrEqual(1);
    // One chain: every honest node has the same block at every height.
    const last = Math.min(...heads(n).slice(0, 3).map(Number));
    for (let num = 1; num <= last; num++) {
      const hashes = new Set(
        [honest0, honest1, honest2].map((x) => chainHash((x.chain[num] as Block).header)),
      );
      expect(hashes.size).toBe(1);
    }
    expect(addressOf(stranger)).not.toBe(byz.address);
  }, 40000);
});
