/**
 * Clique import rules on a real chain store: hand-sealed empty blocks are accepted or refused with a
 * reason; votes change the signer set by majority and reset at checkpoints.
 */
import type { Block } from '@ethereumjs/block';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidBlockError } from '../../src/chain/errors.js';
import { SignerTally } from '../../src/consensus/clique/snapshot.js';
import { type CliqueTestChain, cliqueGenesis, openCliqueChain, sealEmptyBlock, testKey } from './helpers.js';

const A = testKey('a');
const B = testKey('b');
const C = testKey('c');
const sorted = (...xs: string[]) => [...xs].sort();

let open: CliqueTestChain | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function refused(chain: CliqueTestChain, block: Block): Promise<string> {
  const err = await chain.importer.importBlock(block).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InvalidBlockError);
  return (err as InvalidBlockError).reason;
}

/** The difficulty `signer` must use for the child of the head. */
function turn(chain: CliqueTestChain, signer: string): bigint {
  const head = chain.chain.headHeader();
  const signers = chain.clique.signersAfter(head);
  return signers[Number((head.number + 1n) % BigInt(signers.length))] === signer ? 2n : 1n;
}

describe('Clique import rules', () => {
  it('accepts blocks of the only signer and refuses a wrong difficulty or a stranger', async () => {
    open = await openCliqueChain(cliqueGenesis([A.address]));
    const c = open;
    let parent = c.genesis.header;
    for (let i = 0; i < 3; i++) {
      const b = sealEmptyBlock(parent, A);
      expect(await c.importer.importBlock(b)).toBe('imported');
      parent = b.header;
    }
    expect(c.chain.head().number).toBe(3n);
    expect(c.clique.signersAfter(parent)).toEqual([A.address]);
    expect(c.clique.proposerOf(parent)).toBe(A.address);
    expect(c.clique.proposerOf(c.genesis.header)).toBe('0x0000000000000000000000000000000000000000');

    expect(await refused(c, sealEmptyBlock(parent, A, { difficulty: 1n }))).toMatch(
      /difficulty 1 does not match expected 2/,
    );
    expect(await refused(c, sealEmptyBlock(parent, B))).toMatch(
      /sealer 0x[0-9a-f]{40} is not an authorised signer/,
    );
    expect(await refused(c, sealEmptyBlock(parent, A, { signers: [A.address] }))).toMatch(/non-checkpoint/);
    expect(await refused(c, sealEmptyBlock(parent, A, { mixHash: new Uint8Array(32).fill(1) }))).toMatch(
      /mixHash/,
    );
    expect(c.chain.head().number).toBe(3n);
  });

  it('refuses a block sooner than the block period', async () => {
    open = await openCliqueChain(cliqueGenesis([A.address], { blockperiodseconds: 5 }));
    const c = open;
    const early = sealEmptyBlock(c.genesis.header, A, { timestamp: 4n });
    expect(await refused(c, early)).toMatch(/block period 5/);
    expect(await c.importer.importBlock(sealEmptyBlock(c.genesis.header, A, { timestamp: 5n }))).toBe(
      'imported',
    );
  });

  it('adds a signer by majority, then enforces turns and recency', async () => {
    open = await openCliqueChain(cliqueGenesis([A.address]));
    const c = open;
    const b1 = sealEmptyBlock(c.genesis.header, A, { vote: { candidate: B.address, add: true } });
    await c.importer.importBlock(b1);
    expect(c.clique.signersAfter(b1.header)).toEqual(sorted(A.address, B.address));
    expect(c.clique.signersAfter(c.genesis.header)).toEqual([A.address]);

    // Two signers: A sealed block 1, so it must sit out block 2.
    expect(await refused(c, sealEmptyBlock(b1.header, A, { difficulty: turn(c, A.address) }))).toMatch(
      /sealed one of the last 1 blocks/,
    );
    const wrongTurn = turn(c, B.address) === 2n ? 1n : 2n;
    expect(await refused(c, sealEmptyBlock(b1.header, B, { difficulty: wrongTurn }))).toMatch(/difficulty/);
    const b2 = sealEmptyBlock(b1.header, B, { difficulty: turn(c, B.address) });
    expect(await c.importer.importBlock(b2)).toBe('imported');
    const b3 = sealEmptyBlock(b2.header, A, { difficulty: turn(c, A.address) });
    expect(await c.importer.importBlock(b3)).toBe('imported');
  });

  it('lists the signers on checkpoints and forgets pending votes there', async () => {
    open = await openCliqueChain(cliqueGenesis([A.address, B.address], { epochlength: 2 }));
    const c = open;
    const ab = sorted(A.address, B.address);
    // A votes for C: one vote of two is no majority.
    const b1 = sealEmptyBlock(c.genesis.header, A, {
      difficulty: turn(c, A.address),
      vote: { candidate: C.address, add: true },
    });
    await c.importer.importBlock(b1);
    expect(c.clique.signersAfter(b1.header)).toEqual(ab);

    expect(await refused(c, sealEmptyBlock(b1.header, B, { difficulty: turn(c, B.address) }))).toMatch(
      /checkpoint signers \[\] do not match/,
    );
    expect(
      await refused(
        c,
        sealEmptyBlock(b1.header, B, {
          difficulty: turn(c, B.address),
          vote: { candidate: C.address, add: true },
          signers: ab,
        }),
      ),
    ).toMatch(/coinbase of checkpoint block/);
    const b2 = sealEmptyBlock(b1.header, B, { difficulty: turn(c, B.address), signers: ab });
    await c.importer.importBlock(b2);

    // B's vote after the checkpoint is alone again: A's earlier vote was reset.
    const b3 = sealEmptyBlock(b2.header, A, { difficulty: turn(c, A.address) });
    await c.importer.importBlock(b3);
    const b4 = sealEmptyBlock(b3.header, B, { difficulty: turn(c, B.address), signers: ab });
    await c.importer.importBlock(b4);
    const b5 = sealEmptyBlock(b4.header, A, {
      difficulty: turn(c, A.address),
      vote: { candidate: C.address, add: true },
    });
    await c.importer.importBlock(b5);
    expect(c.clique.signersAfter(b5.header)).toEqual(ab);
    expect(c.chain.head().number).toBe(5n);
  });
});

describe('SignerTally', () => {
  it('drops a signer by majority and discards the votes it cast', () => {
    let t = SignerTally.checkpoint(['0x03', '0x01', '0x02']);
    expect(t.signers).toEqual(['0x01', '0x02', '0x03']);
    t = t.withVote('0x03', { candidate: '0x09', add: true });
    t = t.withVote('0x01', { candidate: '0x03', add: false });
    expect(t.signers).toEqual(['0x01', '0x02', '0x03']);
    t = t.withVote('0x02', { candidate: '0x03', add: false });
    expect(t.signers).toEqual(['0x01', '0x02']);
    // 0x03's vote for 0x09 went with it: one more vote is not yet a majority of two.
    t = t.withVote('0x01', { candidate: '0x09', add: true });
    expect(t.signers).toEqual(['0x01', '0x02']);
    t = t.withVote('0x02', { candidate: '0x09', add: true });
    expect(t.signers).toEqual(['0x01', '0x02', '0x09']);
  });

  it('lets a voter change its mind', () => {
    let t = SignerTally.checkpoint(['0x01', '0x02', '0x03']);
    t = t.withVote('0x01', { candidate: '0x03', add: false });
    t = t.withVote('0x01', { candidate: '0x03', add: true });
    t = t.withVote('0x02', { candidate: '0x03', add: false });
    expect(t.signers).toEqual(['0x01', '0x02', '0x03']);
  });
});
