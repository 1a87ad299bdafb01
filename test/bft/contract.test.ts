/**
 * QBFT validator selection switching by transition on a real chain: block-header votes, then a
 * validator contract (its `getValidators()` on the parent state decides; a transaction changes the
 * set; blocks carry no validators or votes; RPC votes answer -32604), then block headers again with a
 * transition's set — each block imported by a second node with full checks.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeExtraData, encodeExtraData } from '../../src/consensus/bft/extraData.js';
import { knownErrorObject } from '../../src/rpc/errors.js';
import { allMethods } from '../../src/rpc/methods/index.js';
import {
  type BftTestChain,
  bftGenesis,
  FUNDED,
  openBftChain,
  sealsBy,
  type TestKey,
  validatorKeys,
} from './helpers.js';

const V = validatorKeys(3, 'contract');
const [V0, V1, V2] = V as [TestKey, TestKey, TestKey];
const CONTRACT = '0x0000000000000000000000000000000000008888';

/** Assembles opcodes and 2-byte jump labels (`@name` defines, `:name` pushes). */
function assemble(program: string): string {
  const ops: Record<string, number> = {
    STOP: 0x00,
    ADD: 0x01,
    MUL: 0x02,
    DIV: 0x04,
    LT: 0x10,
    EQ: 0x14,
    ISZERO: 0x15,
    CALLDATALOAD: 0x35,
    CALLDATASIZE: 0x36,
    POP: 0x50,
    MSTORE: 0x52,
    SLOAD: 0x54,
    SSTORE: 0x55,
    JUMP: 0x56,
    JUMPI: 0x57,
    JUMPDEST: 0x5b,
    PUSH1: 0x60,
    PUSH2: 0x61,
    DUP1: 0x80,
    DUP2: 0x81,
    RETURN: 0xf3,
  };
  const tokens = program.trim().split(/\s+/);
  const labels = new Map<string, number>();
  const size = (t: string) => (t.startsWith('@') ? 0 : t.startsWith(':') ? 3 : t.startsWith('0x') ? 0 : 1);
  let at = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t.startsWith('@')) labels.set(t.slice(1), at);
    else if (t.startsWith('0x')) at += (t.length - 2) / 2;
    else at += size(t);
  }
  let out = '';
  for (const t of tokens) {
    if (t.startsWith('@')) continue;
    if (t.startsWith(':')) out += `61${(labels.get(t.slice(1)) as number).toString(16).padStart(4, '0')}`;
    else if (t.startsWith('0x')) out += t.slice(2);
    else out += (ops[t] as number).toString(16).padStart(2, '0');
  }
  return `0x${out}`;
}

// getValidators() (4 bytes of call data): the addresses in slots 1..n (n in slot 0) as an ABI
// address[]. Any other call data: replaces the list with its 32-byte words.
const VALIDATOR_CONTRACT = assemble(`
  CALLDATASIZE PUSH1 0x04 EQ :read JUMPI
  PUSH1 0x20 CALLDATASIZE DIV DUP1 PUSH1 0x00 SSTORE PUSH1 0x00
  @wloop JUMPDEST DUP2 DUP2 LT ISZERO :wend JUMPI
  DUP1 PUSH1 0x20 MUL CALLDATALOAD DUP2 PUSH1 0x01 ADD SSTORE PUSH1 0x01 ADD :wloop JUMP
  @wend JUMPDEST STOP
  @read JUMPDEST PUSH1 0x20 PUSH1 0x00 MSTORE PUSH1 0x00 SLOAD DUP1 PUSH1 0x20 MSTORE PUSH1 0x00
  @rloop JUMPDEST DUP2 DUP2 LT ISZERO :rend JUMPI
  DUP1 PUSH1 0x01 ADD SLOAD DUP2 PUSH1 0x20 MUL PUSH1 0x40 ADD MSTORE PUSH1 0x01 ADD :rloop JUMP
  @rend JUMPDEST POP PUSH1 0x20 MUL PUSH1 0x40 ADD PUSH1 0x00 RETURN
`);

const word = (v: string | number) =>
  typeof v === 'number' ? `0x${v.toString(16).padStart(64, '0')}` : `0x${v.slice(2).padStart(64, '0')}`;
const byName = new Map(allMethods.map((m) => [m.name, m]));

describe('QBFT validator selection by transition', () => {
  let a: BftTestChain;
  let b: BftTestChain;
  beforeAll(async () => {
    const genesis = bftGenesis(
      'qbft',
      [V0.address, V1.address],
      {},
      {
        config: {
          transitions: {
            qbft: [
              { block: 2, validatorselectionmode: 'contract', validatorcontractaddress: CONTRACT },
              { block: 4, validatorselectionmode: 'blockheader', validators: [V0.address, V1.address] },
            ],
          },
        },
        alloc: {
          [CONTRACT]: {
            balance: '0x0',
            code: VALIDATOR_CONTRACT,
            storage: { [word(0)]: word(2), [word(1)]: word(V0.address), [word(2)]: word(V2.address) },
          },
        },
      },
    );
    a = await openBftChain(genesis, V0);
    b = await openBftChain(genesis, V1);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  async function call(method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: object }> {
    const m = byName.get(method) as NonNullable<ReturnType<typeof byName.get>>;
    try {
      const services = a.backend.services;
      return { result: JSON.parse(JSON.stringify(await m.handler(params, { services, transport: 'http' }))) };
    } catch (err) {
      return { error: knownErrorObject(err) };
    }
  }

  async function produce(sealers: readonly TestKey[]): Promise<BlockHeader> {
    const parent = a.backend.services.chain.headHeader();
    const built = await a.creator.createBlock(parent, 0, parent.timestamp + 1n);
    const sealed = a.creator.seal(built.block, sealsBy(a.engine, built.block, sealers));
    expect(await a.creator.commit(sealed, built)).toBe('imported');
    expect(await b.backend.services.importer.importBlock(sealed)).toBe('imported');
    return sealed.header;
  }

  it('reads the contract from its transition on and leaves it at the next', async () => {
    const bft = a.engine.bft;
    const one = await produce([V0, V1]);
    expect(decodeExtraData('qbft', one.extraData).validators).toEqual([V0.address, V1.address]);
    // Block 2 is in contract mode: the contract holds V0 and V2.
    expect(await bft.validatorsAfter(one)).toEqual([V0.address, V2.address]);
    expect(await call('qbft_getValidatorsByBlockNumber', ['0x1'])).toEqual({
      result: [V0.address, V1.address],
    });

    // Block 2 (contract mode) carries a transaction that puts V1 back in: V0, V1, V2 from block 3.
    const data = hexToBytes(`0x${[V0, V1, V2].map((v) => word(v.address).slice(2)).join('')}`);
    const tx = createFeeMarket1559Tx(
      {
        chainId: 4343,
        nonce: 0,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
        gasLimit: 200000,
        to: CONTRACT,
        data,
      },
      { common: a.backend.services.common },
    ).sign(FUNDED.key);
    await a.backend.services.txPool?.add(tx, true);
    const two = await produce([V0, V2]);
    const extra = decodeExtraData('qbft', two.extraData);
    expect(extra.validators).toEqual([]);
    expect(extra.vote).toBeUndefined();
    expect(await call('qbft_getValidatorsByBlockNumber', ['latest'])).toEqual({
      result: [V0.address, V1.address, V2.address],
    });
    expect(await call('qbft_proposeValidatorVote', [V1.address, true])).toEqual({
      error: { code: -32604, message: 'Method not enabled' },
    });
    expect(await call('qbft_getPendingVotes')).toEqual({
      error: { code: -32604, message: 'Method not enabled' },
    });
    expect(await bft.validatorsAfter(two)).toEqual([V0.address, V1.address, V2.address]);

    // A contract-mode block that lists validators is refused.
    const parent = a.backend.services.chain.headHeader();
    const built = await a.creator.createBlock(parent, 0, parent.timestamp + 1n);
    const raw = built.block.header.raw();
    raw[12] = encodeExtraData('qbft', {
      ...decodeExtraData('qbft', raw[12] as Uint8Array),
      validators: [V0.address],
    });
    const { createBlockFromBytesArray } = await import('@ethereumjs/block');
    const listed = createBlockFromBytesArray([raw, [], [], []] as never, {
      common: built.block.common,
      skipConsensusFormatValidation: true,
    });
    await expect(b.backend.services.importer.importBlock(listed)).rejects.toThrow(
      'the validator contract decides them',
    );

    const three = await produce([V1, V2]);
    // Block 4 is back in block-header mode with the transition's set.
    expect(await bft.validatorsAfter(three)).toEqual([V0.address, V1.address]);
    const four = await produce([V0, V1]);
    expect(decodeExtraData('qbft', four.extraData).validators).toEqual([V0.address, V1.address]);
    expect(await call('qbft_getPendingVotes')).toEqual({ result: {} });
    expect(bytesToHex(b.backend.services.chain.head().hash)).toBe(bytesToHex(four.hash()));
  });
});
