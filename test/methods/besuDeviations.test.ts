/**
 * Answers Besu gives in areas its held-out spec cases cover, on the Besu hive test chain (Cancun at
 * the head, blob base fee 1 wei): blob calls without a recipient or, under `strict`, without a blob
 * fee; the block parameter's error winning over a malformed call; the value check after an override
 * lowers the sender's balance; reward percentiles in any order; unknown block hashes; overrides that
 * set both `state` and `stateDiff`; a precompile whose code is overridden; the largest nonce.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, openTestChain, type TestChain } from './chain.js';

/** Funded, nonce 0x20-ish on the hive chain. */
const SENDER = '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b';
/** A contract of the hive chain: `0x12a7b914` returns a stored word. */
const CONTRACT = '0x6295ee1b4f6dd65047762f924ecd367c17eabf8f';
const HASH = '0x01000000000000000000000000000000000000000000000000000000000000aa';
const SLOT = `0x${'0'.repeat(64)}`;
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

let chain: TestChain;

beforeAll(async () => {
  const dir = join(CONFORMANCE, 'besu/chain-data/hive');
  chain = await openTestChain({
    genesis: join(dir, 'testGenesis.json'),
    blocks: join(dir, 'testBlockchain.blocks'),
    networkId: 123n,
    config: { rpcGasCap: 0n },
  });
});
afterAll(async () => {
  await chain?.close();
});

const err = (code: number, message: string) => ({ error: { code, message } });

describe('blob calls', () => {
  it('without `to`: -32602 Invalid transaction type, before any other check', async () => {
    const expected = err(
      -32602,
      'Invalid transaction type (transaction blob transactions must have a to address)',
    );
    const call = { from: SENDER, data: '0x00', blobVersionedHashes: [HASH], maxFeePerBlobGas: '0x5' };
    expect(await chain.call('eth_call', [call, 'latest'])).toEqual(expected);
    expect(
      await chain.call('eth_call', [{ ...call, strict: true, value: '0xffffffffffffffffffff' }, 'latest']),
    ).toEqual(expected);
    expect(await chain.call('eth_estimateGas', [call, 'latest'])).toEqual(expected);
  });

  it('under `strict`, a blob fee cap below the blob base fee is -32009; without `strict` it runs', async () => {
    const call = { from: SENDER, to: CONTRACT, data: '0x12a7b914', blobVersionedHashes: [HASH] };
    expect(
      await chain.call('eth_call', [
        { ...call, gasPrice: '0x3b9aca00', maxFeePerBlobGas: '0x0', strict: true },
        'latest',
      ]),
    ).toEqual(
      err(
        -32009,
        `blob gas price below current blob base fee (tx max fee per blob gas less than block blob gas fee: address ${SENDER} blobGasFeeCap: 0 wei, blobBaseFee: 1 wei)`,
      ),
    );
    expect(
      (
        await chain.call('eth_call', [
          { ...call, gasPrice: '0x3b9aca00', maxFeePerBlobGas: '0x1', strict: true },
          'latest',
        ])
      ).error,
    ).toBeUndefined();
    expect(
      (await chain.call('eth_call', [{ ...call, maxFeePerBlobGas: '0x0' }, 'latest'])).error,
    ).toBeUndefined();
  });
});

describe('eth_call block parameter', () => {
  it('is required and decoded first: its error wins over a malformed call object', async () => {
    const invalidBlock = err(-32602, 'Invalid block param (block not found)');
    expect(await chain.call('eth_call', ['0x8'])).toEqual(invalidBlock);
    expect(await chain.call('eth_call', [{ to: CONTRACT }])).toEqual(invalidBlock);
    expect(await chain.call('eth_call', [{ to: 12 }, 'lates'])).toEqual(invalidBlock);
    // A block that does not exist answers null before the call object is looked at.
    expect(await chain.call('eth_call', [{ to: 12 }, '0x100'])).toEqual({ result: null });
    expect(await chain.call('eth_call', [{ to: 12 }, `0x${'ab'.repeat(32)}`])).toEqual({ result: null });
    expect(await chain.call('eth_call', [{ to: 12 }, 'latest'])).toEqual(err(-32602, 'Invalid call params'));
  });

  it('eth_getCode with a hash that names no block: null', async () => {
    expect(await chain.call('eth_getCode', [CONTRACT, `0x${'ab'.repeat(32)}`])).toEqual({ result: null });
  });
});

describe('value and balance after a state override', () => {
  it('a call may not send more than the overridden balance, priced or not', async () => {
    const overrides = { [SENDER]: { balance: '0x1' } };
    const expected = err(
      -32004,
      `Upfront cost exceeds account balance (transaction up-front cost 0x2 exceeds transaction sender account balance 0x1 for sender ${SENDER})`,
    );
    for (const method of ['eth_call', 'eth_estimateGas', 'eth_createAccessList']) {
      expect(
        await chain.call(method, [{ from: SENDER, to: CONTRACT, value: '0x2' }, 'latest', overrides]),
        method,
      ).toEqual(expected);
    }
    // With the value covered it runs.
    expect(
      (await chain.call('eth_call', [{ from: SENDER, to: CONTRACT, value: '0x1' }, 'latest', overrides]))
        .error,
    ).toBeUndefined();
    // An unfunded sender without overrides cannot send value either.
    const empty = `0x${'e7'.repeat(20)}`;
    expect(
      (await chain.call('eth_call', [{ from: empty, to: CONTRACT, value: '0x1' }, 'latest'])).error?.code,
    ).toBe(-32004);
  });
});

describe('state overrides', () => {
  it('`state` together with `stateDiff` for one account is refused as Besu refuses it', async () => {
    const both = { [CONTRACT]: { state: { [SLOT]: word(1) }, stateDiff: { [SLOT]: word(2) } } };
    for (const method of ['eth_call', 'eth_estimateGas', 'eth_createAccessList']) {
      expect(
        await chain.call(method, [{ to: CONTRACT, data: '0x12a7b914' }, 'latest', both]),
        method,
      ).toEqual(err(-32602, 'Invalid call params'));
    }
    const simulate = await chain.call('eth_simulateV1', [
      { blockStateCalls: [{ stateOverrides: both, calls: [{ to: CONTRACT, data: '0x12a7b914' }] }] },
      'latest',
    ]);
    expect(simulate).toEqual(err(-32602, 'Invalid params'));
  });

  it('`state` replaces the storage, `stateDiff` sets single slots, alike in eth_call and eth_simulateV1', async () => {
    const read = { to: CONTRACT, data: '0x12a7b914' };
    const before = (await chain.call('eth_call', [read, 'latest'])).result as string;
    for (const o of [{ state: { [SLOT]: word(7) } }, { stateDiff: { [SLOT]: word(7) } }]) {
      const overrides = { [CONTRACT]: o };
      const viaCall = (await chain.call('eth_call', [read, 'latest', overrides])).result;
      const viaSimulate = (await chain.call('eth_simulateV1', [
        { blockStateCalls: [{ stateOverrides: overrides, calls: [read] }] },
        'latest',
      ])) as { result: Array<{ calls: Array<{ returnData: string }> }> };
      expect(viaSimulate.result[0]?.calls[0]?.returnData).toBe(viaCall);
    }
    // An empty `state` clears the storage.
    const cleared = (await chain.call('eth_call', [read, 'latest', { [CONTRACT]: { state: {} } }])).result;
    expect(cleared).not.toBe(before);
  });

  it('a precompile whose code is overridden stays a precompile unless it is moved', async () => {
    const sha256 = '0x0000000000000000000000000000000000000002';
    const code = { [sha256]: { code: '0x60ff60005260206000f3' } };
    const plain = (await chain.call('eth_call', [{ to: sha256, data: '0x' }, 'latest'])).result;
    expect(plain).toBe('0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect((await chain.call('eth_call', [{ to: sha256, data: '0x' }, 'latest', code])).result).toBe(plain);
    const moved = {
      [sha256]: { code: '0x60ff60005260206000f3', movePrecompileToAddress: `0x${'12'.repeat(20)}` },
    };
    expect((await chain.call('eth_call', [{ to: sha256, data: '0x' }, 'latest', moved])).result).toBe(
      word(0xff),
    );
    expect(
      (await chain.call('eth_call', [{ to: `0x${'12'.repeat(20)}`, data: '0x' }, 'latest', moved])).result,
    ).toBe(plain);
  });
});

describe('the largest nonce', () => {
  it('0xffffffffffffffff runs in every simulation method, calls and creations alike (simulations allow any future nonce)', async () => {
    const nonce = '0xffffffffffffffff';
    for (const call of [
      { from: SENDER, to: CONTRACT, data: '0x12a7b914', nonce },
      { from: SENDER, data: '0x600160005260206000f3', nonce },
    ]) {
      for (const method of ['eth_call', 'eth_estimateGas', 'eth_createAccessList']) {
        const answer = await chain.call(method, [call, 'latest']);
        expect(answer.error, `${method} ${call.data}`).toBeUndefined();
      }
    }
    // Beyond 64 bits it is not a nonce at all.
    expect(
      await chain.call('eth_estimateGas', [{ from: SENDER, to: CONTRACT, nonce: '0x10000000000000000' }]),
    ).toEqual(err(-32602, 'Invalid call params'));
  });
});

describe('eth_feeHistory reward percentiles', () => {
  const rewards = async (p: unknown) =>
    ((await chain.call('eth_feeHistory', ['0x2', 'latest', p])) as { result?: { reward?: string[][] } })
      .result?.reward;

  it('any order and any value: listed for the percentiles in ascending order', async () => {
    const sorted = await rewards([0, 4, 100]);
    expect(sorted?.length).toBe(2);
    expect(sorted?.[0]?.length).toBe(3);
    expect(await rewards([0.0, 100.0, 4.0])).toEqual(sorted);
    expect(await rewards([100, 4, 0])).toEqual(sorted);
    expect(await rewards(['4', '100', '0'])).toEqual(sorted);
    expect((await rewards([-1, 101]))?.[0]?.length).toBe(2);
  });

  it('more than 100 percentiles: answered without rewards', async () => {
    const answer = await chain.call('eth_feeHistory', [
      '0x2',
      'latest',
      Array.from({ length: 101 }, (_, i) => i % 100),
    ]);
    expect(answer.error).toBeUndefined();
    expect((answer.result as Record<string, unknown>).reward).toBeUndefined();
    expect((await rewards(Array.from({ length: 100 }, (_, i) => i)))?.[0]?.length).toBe(100);
  });

  it('anything but a list of numbers: -32602 Invalid reward percentiles params', async () => {
    for (const p of ['x', 50, { a: 1 }, [true], [null], [[1]], [{}], ['abc'], ['0x10']]) {
      expect(await chain.call('eth_feeHistory', ['0x2', 'latest', p]), JSON.stringify(p)).toEqual(
        err(-32602, 'Invalid reward percentiles params'),
      );
    }
  });
});
