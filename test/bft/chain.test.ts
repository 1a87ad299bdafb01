/**
 * BFT blocks end to end on the real chain store and importer: a block built by the node key, sealed
 * by the validators and committed; the same block imported by a second node with full checks and
 * execution; proposals checked before signing; the block hash that does not change with seals or
 * round; and a single validator that seals its own blocks.
 */
import { createBlockFromBytesArray } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeExtraData } from '../../src/consensus/bft/extraData.js';
import {
  type BftTestChain,
  bftGenesis,
  openBftChain,
  produceBlock,
  sealsBy,
  type TestKey,
  testKey,
  validatorKeys,
} from './helpers.js';

const VALIDATORS = validatorKeys(4);

for (const variant of ['qbft', 'ibft2'] as const) {
  describe(`${variant} blocks`, () => {
    let a: BftTestChain;
    let b: BftTestChain;
    beforeAll(async () => {
      const genesis = bftGenesis(
        variant,
        VALIDATORS.map((v) => v.address),
      );
      a = await openBftChain(genesis, VALIDATORS[0] as TestKey);
      b = await openBftChain(genesis, VALIDATORS[1] as TestKey);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('builds, seals and commits a block that another node imports', async () => {
      const genesis = a.backend.services.chain.headHeader();
      const built = await a.creator.createBlock(genesis, 0, genesis.timestamp + 1n);
      const unsealedHash = bytesToHex(built.block.hash());
      const sealed = a.creator.seal(built.block, sealsBy(a.engine, built.block, VALIDATORS.slice(0, 3)));
      expect(bytesToHex(sealed.hash())).toBe(unsealedHash);
      expect(await a.creator.commit(sealed, built)).toBe('imported');
      expect(bytesToHex(a.backend.services.chain.head().hash)).toBe(unsealedHash);
      const extra = decodeExtraData(variant, sealed.header.extraData);
      expect(extra.validators).toEqual(VALIDATORS.map((v) => v.address));
      expect(extra.seals).toHaveLength(3);
      expect(await b.backend.services.importer.importBlock(sealed)).toBe('imported');
      expect(bytesToHex(b.backend.services.chain.head().hash)).toBe(unsealedHash);
      // b checks a's next proposal before signing it: header, proposer and execution.
      const proposal = await a.creator.createBlock(sealed.header, 2, sealed.header.timestamp + 1n);
      expect(await b.creator.validateProposal(proposal.block)).toBeUndefined();
      const raw = proposal.block.raw();
      (raw[0] as Uint8Array[])[3] = new Uint8Array(32).fill(1);
      const badState = createBlockFromBytesArray(raw as Parameters<typeof createBlockFromBytesArray>[0], {
        common: proposal.block.common,
        skipConsensusFormatValidation: true,
      });
      expect(await b.creator.validateProposal(badState)).toContain('invalid block stateRoot');
      const stranger = await a
        .creatorFor(testKey('stranger'))
        .createBlock(sealed.header, 0, sealed.header.timestamp + 1n);
      expect(await b.creator.validateProposal(stranger.block)).toContain('is not a validator');
      const next = await produceBlock(a, sealed.header, VALIDATORS.slice(1, 4), { round: 2 });
      expect(await b.backend.services.importer.importBlock(next)).toBe('imported');
      expect(decodeExtraData(variant, next.header.extraData).round).toBe(2);
    });
  });
}

describe('a single-validator QBFT chain', () => {
  it('builds, seals with its own key and imports its blocks', async () => {
    const solo = validatorKeys(1, 'solo')[0] as TestKey;
    const genesis = bftGenesis('qbft', [solo.address]);
    const a = await openBftChain(genesis, solo);
    const b = await openBftChain(genesis, solo);
    try {
      let parent = a.backend.services.chain.headHeader();
      for (let i = 0; i < 3; i++) {
        const block = await produceBlock(a, parent, [solo]);
        expect(await b.backend.services.importer.importBlock(block)).toBe('imported');
        expect(await a.engine.bft.proposerFor(parent, 0)).toBe(solo.address);
        parent = block.header;
      }
      expect(b.backend.services.chain.head().number).toBe(3n);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
