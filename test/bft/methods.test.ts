/**
 * The IBFT and QBFT groups over real BFT chains built by importing and committing sealed blocks:
 * validators by block number and hash, votes carried into blocks and tallied into the validator set,
 * pending votes, signer metrics, the request timeout, and Besu's errors.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeExtraData } from '../../src/consensus/bft/extraData.js';
import { knownErrorObject } from '../../src/rpc/errors.js';
import { allMethods } from '../../src/rpc/methods/index.js';
import { hashMapOrder, javaBytesHash } from '../../src/util/javaOrder.js';
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
const NEW = testKey('newcomer');
const byName = new Map(allMethods.map((m) => [m.name, m]));

for (const variant of ['qbft', 'ibft2'] as const) {
  const p = variant === 'qbft' ? 'qbft' : 'ibft';
  const other = variant === 'qbft' ? 'ibft' : 'qbft';

  describe(`${p}_* on a ${variant} chain`, () => {
    let c: BftTestChain;
    const headers: BlockHeader[] = [];

    async function call(
      method: string,
      params: unknown[] = [],
    ): Promise<{ result?: unknown; error?: object }> {
      const m = byName.get(method);
      if (!m) throw new Error(`no method ${method}`);
      try {
        const services = c.backend.services;
        return {
          result: JSON.parse(JSON.stringify(await m.handler(params, { services, transport: 'http' }))),
        };
      } catch (err) {
        const error = knownErrorObject(err);
        if (error === undefined) throw err;
        return { error };
      }
    }

    beforeAll(async () => {
      c = await openBftChain(
        bftGenesis(
          variant,
          V.map((v) => v.address),
        ),
        V0,
      );
      headers.push(c.backend.services.chain.headHeader());
      // Blocks 1–3: V0, V1, V2 each vote the newcomer in (3 of 4 is a majority); block 4 by V3.
      expect(await call(`${p}_proposeValidatorVote`, [NEW.address, true])).toEqual({ result: true });
      for (const proposer of [V0, V1, V2, V3]) {
        const parent = headers[headers.length - 1] as BlockHeader;
        const block = await produceBlock(c, parent, [V0, V1, V2], { proposer });
        headers.push(block.header);
      }
    });
    afterAll(async () => {
      await c?.close();
    });

    it('carries the votes in blocks and adds the newcomer once a majority voted', async () => {
      const votes = headers.slice(1, 4).map((h) => decodeExtraData(variant, h.extraData).vote);
      expect(votes).toEqual([1, 2, 3].map(() => ({ recipient: NEW.address, add: true })));
      // Block 4 lists the five validators and carries no vote: the newcomer is in.
      const four = decodeExtraData(variant, (headers[4] as BlockHeader).extraData);
      expect(four.validators).toEqual([...V.map((v) => v.address), NEW.address].sort());
      expect(four.vote).toBeUndefined();
    });

    it('answers the validators of a block by number and by hash', async () => {
      const four = V.map((v) => v.address);
      const five = [...four, NEW.address].sort();
      expect(await call(`${p}_getValidatorsByBlockNumber`, ['0x0'])).toEqual({ result: four });
      expect(await call(`${p}_getValidatorsByBlockNumber`, ['earliest'])).toEqual({ result: four });
      expect(await call(`${p}_getValidatorsByBlockNumber`, ['0x3'])).toEqual({ result: four });
      expect(await call(`${p}_getValidatorsByBlockNumber`, ['latest'])).toEqual({ result: five });
      expect(await call(`${p}_getValidatorsByBlockNumber`, ['pending'])).toEqual({ result: five });
      expect(await call(`${p}_getValidatorsByBlockNumber`, ['0x64'])).toEqual({ result: null });
      const hash = bytesToHex((headers[4] as BlockHeader).hash());
      expect(await call(`${p}_getValidatorsByBlockHash`, [hash])).toEqual({ result: five });
      expect(await call(`${p}_getValidatorsByBlockHash`, [`0x${'ab'.repeat(32)}`])).toEqual({ result: null });
      expect(await call(`${p}_getValidatorsByBlockHash`, ['0x1234'])).toEqual({
        error: { code: -32602, message: 'Invalid block hash params' },
      });
      expect(await call(`${p}_getValidatorsByBlockNumber`, [])).toEqual({
        error: { code: -32602, message: 'Invalid block param (block not found)' },
      });
      expect((await call(`${p}_getValidatorsByBlockNumber`, ['finalized'])).error).toEqual({
        code: -39001,
        message: 'Unknown block',
      });
    });

    it('keeps, lists and discards pending votes', async () => {
      expect(await call(`${p}_getPendingVotes`)).toEqual({ result: { [NEW.address]: true } });
      expect(await call(`${p}_proposeValidatorVote`, [V3.address, false])).toEqual({ result: true });
      const pending = (await call(`${p}_getPendingVotes`)).result as Record<string, boolean>;
      expect(pending).toEqual({ [NEW.address]: true, [V3.address]: false });
      expect(await call(`${p}_discardValidatorVote`, [V3.address])).toEqual({ result: true });
      expect(await call(`${p}_discardValidatorVote`, [NEW.address])).toEqual({ result: true });
      expect(await call(`${p}_getPendingVotes`)).toEqual({ result: {} });
      expect(await call(`${p}_proposeValidatorVote`, ['0xnot-an-address', true])).toEqual({
        error: { code: -32602, message: 'Invalid address params' },
      });
      expect(await call(`${p}_proposeValidatorVote`, [NEW.address, 'yes'])).toEqual({
        error: { code: -32602, message: 'Invalid vote type params' },
      });
      expect(await call(`${p}_discardValidatorVote`, [])).toEqual({
        error: { code: -32602, message: 'Invalid address params' },
      });
    });

    it('counts proposed blocks per validator, with the zero-address genesis proposer', async () => {
      const res = (await call(`${p}_getSignerMetrics`)).result as Array<Record<string, string>>;
      const expected = new Map<string, { proposedBlockCount: string; lastProposedBlockNumber: string }>();
      expected.set('0x0000000000000000000000000000000000000000', {
        proposedBlockCount: '0x1',
        lastProposedBlockNumber: '0x0',
      });
      // The range ends before the head (block 4): blocks 1–3 by V0, V1, V2; V3 and the newcomer at zero.
      [V0, V1, V2].forEach((v, i) => {
        expected.set(v.address, {
          proposedBlockCount: '0x1',
          lastProposedBlockNumber: `0x${(i + 1).toString(16)}`,
        });
      });
      for (const a of [V3.address, NEW.address])
        expected.set(a, { proposedBlockCount: '0x0', lastProposedBlockNumber: '0x0' });
      const order = hashMapOrder([...expected.keys()], (a) => javaBytesHash(Buffer.from(a.slice(2), 'hex')));
      expect(res).toEqual(order.map((address) => ({ address, ...expected.get(address) })));
      expect(await call(`${p}_getSignerMetrics`, ['0x3', '0x2'])).toEqual({
        error: { code: -32602, message: 'Invalid block number params' },
      });
    });

    it('answers qbft_getRequestTimeoutSeconds as a JSON number on QBFT only, and no other group', async () => {
      if (variant === 'qbft') expect(await call('qbft_getRequestTimeoutSeconds')).toEqual({ result: 4 });
      else expect((await call('qbft_getRequestTimeoutSeconds')).error).toMatchObject({ code: -32601 });
      expect((await call(`${other}_getValidatorsByBlockNumber`, ['latest'])).error).toMatchObject({
        code: -32601,
      });
      expect((await call('clique_getSigners')).error).toMatchObject({ code: -32601 });
    });
  });
}
