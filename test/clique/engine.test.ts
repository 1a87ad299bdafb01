/**
 * The Clique sealing engine on a real chain: the consensus fields it chooses (turn, vote, checkpoint
 * signer list), when it is due, and that what it seals passes the import rules.
 */
import { type BlockHeader, createBlock } from '@ethereumjs/block';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeExtraData } from '../../src/consensus/clique/extraData.js';
import type { CliqueEngine } from '../../src/consensus/clique/index.js';
import { type CliqueTestChain, cliqueGenesis, openCliqueChain, sealEmptyBlock, testKey } from './helpers.js';

const A = testKey('a');
const B = testKey('b');
const C = testKey('c');
const ZERO = '0x0000000000000000000000000000000000000000';

let open: CliqueTestChain | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** An empty block on `parent` with the engine's fields, sealed by the engine. */
async function engineBlock(c: CliqueTestChain, engine: CliqueEngine, parent: BlockHeader) {
  const timestamp = engine.childTimestamp(parent, 0);
  const fields = engine.childHeaderFields(parent, timestamp);
  const block = createBlock(
    {
      header: {
        ...fields,
        parentHash: parent.hash(),
        stateRoot: parent.stateRoot,
        number: parent.number + 1n,
        gasLimit: parent.gasLimit,
        timestamp,
        baseFeePerGas: parent.calcNextBaseFee(),
      },
    },
    { common: c.chain.common, setHardfork: true, skipConsensusFormatValidation: true },
  );
  const sealed = await engine.seal(block, new AbortController().signal);
  if (!sealed) throw new Error('not sealed');
  return sealed;
}

describe('CliqueEngine', () => {
  it('votes on ordinary blocks, lists the signers on checkpoints, and its seals import', async () => {
    open = await openCliqueChain(cliqueGenesis([A.address, B.address], { epochlength: 3 }));
    const c = open;
    const engine = c.clique.engine(A.key, new TextEncoder().encode('alder'));
    expect(engine.signer).toBe(A.address);
    c.clique.proposals.propose(C.address, true);

    const b1 = await engineBlock(c, engine, c.genesis.header);
    expect(b1.header.coinbase.toString()).toBe(C.address);
    expect(Buffer.from(b1.header.nonce).toString('hex')).toBe('ffffffffffffffff');
    expect(b1.header.difficulty).toBe(A.address === [A.address, B.address].sort()[1] ? 2n : 1n);
    const extra = decodeExtraData(b1.header.extraData);
    if (typeof extra === 'string') throw new Error(extra);
    expect(Buffer.from(extra.vanity).toString()).toBe(`${'\0'.repeat(27)}alder`);
    expect(extra.signers).toEqual([]);
    expect(await c.importer.importBlock(b1)).toBe('imported');
    expect(c.clique.proposerOf(b1.header)).toBe(A.address);

    // A sealed block 1: with two signers it must wait for B.
    expect(engine.maySealOn(b1.header)).toBe(false);
    expect(engine.nextBlockDelay(b1.header, 0)).toBeUndefined();
    const signers = c.clique.signersAfter(b1.header);
    const b2 = sealEmptyBlock(b1.header, B, {
      difficulty: signers[2 % signers.length] === B.address ? 2n : 1n,
    });
    await c.importer.importBlock(b2);

    // Block 3 is a checkpoint: the signer list, no vote, although a proposal is pending.
    const b3 = await engineBlock(c, engine, b2.header);
    expect(b3.header.coinbase.toString()).toBe(ZERO);
    expect(Buffer.from(b3.header.nonce).toString('hex')).toBe('0000000000000000');
    const cp = decodeExtraData(b3.header.extraData);
    if (typeof cp === 'string') throw new Error(cp);
    expect(cp.signers).toEqual([A.address, B.address].sort());
    expect(await c.importer.importBlock(b3)).toBe('imported');
  });

  it('is due one period after the parent, out-of-turn signers a little later, drawn once per parent', async () => {
    open = await openCliqueChain(cliqueGenesis([A.address, B.address], { blockperiodseconds: 5 }));
    const c = open;
    const sorted = [A.address, B.address].sort();
    // Block 1 is in turn for sorted[1].
    const inTurn = sorted[1] === A.address ? A : B;
    const outOfTurn = inTurn === A ? B : A;
    const parent = c.genesis.header;
    expect(c.clique.engine(inTurn.key, new Uint8Array()).nextBlockDelay(parent, 1000)).toBe(4000);
    const late = c.clique.engine(outOfTurn.key, new Uint8Array());
    const first = late.nextBlockDelay(parent, 1000) as number;
    expect(first).toBeGreaterThan(4000);
    expect(first).toBeLessThanOrEqual(4000 + 1000);
    expect(late.nextBlockDelay(parent, 2000)).toBe(first - 1000);
    // Long after the period, the block is due now and stamped now.
    expect(c.clique.engine(inTurn.key, new Uint8Array()).nextBlockDelay(parent, 60_000)).toBe(0);
    expect(late.childTimestamp(parent, 60_500)).toBe(60n);
    // A stranger never seals.
    expect(c.clique.engine(C.key, new Uint8Array()).nextBlockDelay(parent, 0)).toBeUndefined();
    expect(() => c.clique.engine(C.key, new Uint8Array()).childHeaderFields(parent, 5n)).toThrow(
      /not a signer/,
    );
  });
});
