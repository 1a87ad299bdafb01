/**
 * BFT import rules on a real chain: a block sealed by a quorum imports; forged, missing or duplicated
 * seals, a proposer outside the validators, wrong constants, a wrong validator list, an early
 * timestamp or malformed extraData are refused with a reason and change nothing. Votes: a majority
 * adds or drops a validator, epoch blocks discard pending votes, a transition imposes a set.
 */
import { type Block, createBlockFromBytesArray, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BftVariant } from '../../src/consensus/bft/extraData.js';
import { decodeExtraData, encodeExtraData } from '../../src/consensus/bft/extraData.js';
import { commitSealDigest, signCommitSeal } from '../../src/consensus/bft/hashing.js';
import {
  type BftTestChain,
  bftGenesis,
  openBftChain,
  produceBlock,
  type TestKey,
  testKey,
  validatorKeys,
} from './helpers.js';

const V = validatorKeys(4);
const [V0, V1, V2, V3] = V as [TestKey, TestKey, TestKey, TestKey];
const OUTSIDER = testKey('outsider');

/** `block` with header fields edited, re-sealed by `sealers` over the edited header. */
function edited(
  variant: BftVariant,
  block: Block,
  sealers: readonly TestKey[],
  edit: (raw: Uint8Array[]) => void = () => {},
): Block {
  const raw = block.header.raw();
  edit(raw);
  const opts = { common: block.common, skipConsensusFormatValidation: true };
  const unsealed = createBlockHeaderFromBytesArray(raw, opts);
  const extra = decodeExtraData(variant, unsealed.extraData);
  const digest = commitSealDigest(variant, unsealed, { ...extra, seals: [] });
  raw[12] = encodeExtraData(variant, { ...extra, seals: sealers.map((k) => signCommitSeal(digest, k.key)) });
  const body = block.raw();
  body[0] = raw;
  return createBlockFromBytesArray(body as Parameters<typeof createBlockFromBytesArray>[0], opts);
}

for (const variant of ['qbft', 'ibft2'] as const) {
  describe(`${variant} import rules`, () => {
    let c: BftTestChain;
    beforeAll(async () => {
      c = await openBftChain(
        bftGenesis(
          variant,
          V.map((v) => v.address),
          { blockperiodseconds: 2 },
        ),
        V0,
      );
    });
    afterAll(async () => {
      await c?.close();
    });

    async function refused(block: Block, reason: string): Promise<void> {
      const head = bytesToHex(c.backend.services.chain.head().hash);
      await expect(c.backend.services.importer.importBlock(block)).rejects.toThrow(reason);
      expect(bytesToHex(c.backend.services.chain.head().hash)).toBe(head);
    }

    it('refuses bad seals, proposers, constants, validator lists and timestamps; imports a good block', async () => {
      const parent = c.backend.services.chain.headHeader();
      const { block } = await c.creator.createBlock(parent, 0, parent.timestamp + 2n);
      await refused(edited(variant, block, [V0, V1]), '2 committed seals, fewer than the quorum of 3');
      await refused(edited(variant, block, [V0, V1, V1]), 'a validator sealed the block twice');
      await refused(
        edited(variant, block, [V0, V1, OUTSIDER]),
        `committed seal by ${OUTSIDER.address}, who is not a validator`,
      );
      // A seal over another header (the next round) recovers to some other address.
      const otherRound = edited(variant, block, [V0, V1, V2], (raw) => {
        raw[12] = encodeExtraData(variant, { ...decodeExtraData(variant, raw[12] as Uint8Array), round: 1 });
      });
      const forged = edited(variant, block, [V0, V1, V2], (raw) => {
        const extra = decodeExtraData(variant, raw[12] as Uint8Array);
        raw[12] = encodeExtraData(variant, {
          ...extra,
          seals: decodeExtraData(variant, otherRound.header.extraData).seals,
        });
      });
      // `edited` re-seals; put the other round's seals back in afterwards.
      const forgedRaw = forged.header.raw();
      forgedRaw[12] = encodeExtraData(variant, {
        ...decodeExtraData(variant, block.header.extraData),
        seals: decodeExtraData(variant, otherRound.header.extraData).seals,
      });
      const forgedBlock = createBlockFromBytesArray(
        [forgedRaw, [], []] as unknown as Parameters<typeof createBlockFromBytesArray>[0],
        { common: block.common, skipConsensusFormatValidation: true },
      );
      await refused(forgedBlock, 'who is not a validator');

      const outsider = await c.creatorFor(OUTSIDER).createBlock(parent, 0, parent.timestamp + 2n);
      await refused(
        edited(variant, outsider.block, [V0, V1, V2]),
        `proposer ${OUTSIDER.address} is not a validator`,
      );
      await refused(
        edited(variant, block, [V0, V1, V2], (raw) => {
          raw[13] = new Uint8Array(32);
        }),
        'is not the BFT constant',
      );
      await refused(
        edited(variant, block, [V0, V1, V2], (raw) => {
          raw[7] = Uint8Array.of(2);
        }),
        'difficulty 2 is not 1',
      );
      if (variant === 'ibft2') {
        await refused(
          edited(variant, block, [V0, V1, V2], (raw) => {
            raw[14] = hexToBytes('0x0000000000000001');
          }),
          'nonce 0x0000000000000001 is not 0',
        );
      }
      await refused(
        edited(variant, block, [V0, V1, V2], (raw) => {
          raw[11] = hexToBytes(`0x${(parent.timestamp + 1n).toString(16).padStart(2, '0')}`);
        }),
        'is less than parent timestamp',
      );
      await refused(
        edited(variant, block, [V0, V1, V2], (raw) => {
          const extra = decodeExtraData(variant, raw[12] as Uint8Array);
          raw[12] = encodeExtraData(variant, { ...extra, validators: extra.validators.slice(0, 3) });
        }),
        'do not match the validators',
      );
      await refused(
        edited(variant, block, [V0, V1, V2], (raw) => {
          const extra = decodeExtraData(variant, raw[12] as Uint8Array);
          raw[12] = encodeExtraData(variant, { ...extra, validators: [...extra.validators].reverse() });
        }),
        'extraData validators are not in ascending order',
      );
      const garbled = block.header.raw();
      garbled[12] = Uint8Array.of(0xc0);
      await refused(
        createBlockFromBytesArray(
          [garbled, [], []] as unknown as Parameters<typeof createBlockFromBytesArray>[0],
          {
            common: block.common,
            skipConsensusFormatValidation: true,
          },
        ),
        'extraData is not a valid BFT structure',
      );

      const good = edited(variant, block, [V3, V1, V2]);
      expect(await c.backend.services.importer.importBlock(good)).toBe('imported');
      expect(bytesToHex(c.backend.services.chain.head().hash)).toBe(bytesToHex(block.hash()));
    });
  });
}

describe('validator votes', () => {
  let c: BftTestChain;
  const NEW = testKey('voted in');
  beforeAll(async () => {
    c = await openBftChain(
      bftGenesis(
        'qbft',
        V.map((v) => v.address),
        { epochlength: 4 },
        { config: { transitions: { qbft: [{ block: 10, validators: [V0.address, V1.address] }] } } },
      ),
      V0,
    );
  });
  afterAll(async () => {
    await c?.close();
  });

  it('discards votes at epoch blocks, drops by majority, and takes a transition set', async () => {
    const bft = c.engine.bft;
    const chain = c.backend.services.chain;
    const next = async (proposer: TestKey) =>
      (await produceBlock(c, chain.headHeader(), [V0, V1, V2], { proposer })).header;
    bft.proposals.propose(NEW.address, true);
    // Blocks 1–2 vote (2 of the 3 needed), then the epoch block 4 discards them.
    await next(V0);
    await next(V1);
    expect(bft.validators.tallyAfter(chain.headHeader())?.votersFor(NEW.address, true).size).toBe(2);
    bft.proposals.discard(NEW.address);
    await next(V2); // block 3, no vote
    const epoch = await next(V3); // block 4: an epoch block, votes discarded
    expect(bft.schedule.isEpochBlock(epoch.number)).toBe(true);
    expect(bft.validators.tallyAfter(epoch)?.votersFor(NEW.address, true).size).toBe(0);
    // V0, V1, V2 vote V3 out in blocks 5–7 (3 of 4).
    bft.proposals.propose(V3.address, false);
    await next(V0);
    await next(V1);
    const dropped = await next(V2); // block 7
    expect(decodeExtraData('qbft', dropped.extraData).vote).toEqual({ recipient: V3.address, add: false });
    expect(await bft.validatorsAfter(dropped)).toEqual([V0.address, V1.address, V2.address]);
    bft.proposals.discard(V3.address);
    await next(V0); // block 8 (epoch)
    const nine = await next(V1);
    expect(decodeExtraData('qbft', nine.extraData).validators).toEqual([V0.address, V1.address, V2.address]);
    // Block 10 is where the transition imposes {V0, V1}.
    expect(await bft.validatorsAfter(nine)).toEqual([V0.address, V1.address].sort());
    const ten = (await produceBlock(c, nine, [V0, V1], { proposer: V1 })).header;
    expect(decodeExtraData('qbft', ten.extraData).validators).toEqual([V0.address, V1.address].sort());
  });
});
