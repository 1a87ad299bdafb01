/**
 * Bad input on the execution methods, against the real CLI over HTTP: every malformed member, unknown
 * block, stale nonce, unaffordable or underfunded call gets Besu's code and message, and nothing it
 * did (overrides, writes) is visible to the requests that follow.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANCUN_AT_GENESIS } from '../../bench/genchain.mjs';
import { type NodeProcess, removeDir, startNode, tempDir } from '../helpers/node.js';

/** Returns 42. */
const VIEW = '0x00000000000000000000000000000000000c0de1';
/** Returns the gas left after its first instruction (shows the gas limit a call ran with). */
const GAS = '0x00000000000000000000000000000000000c0de2';
/** Returns storage slot 0 (7 in the genesis). */
const READ = '0x00000000000000000000000000000000000c0de3';
/** Writes slot 0 := 1, then reverts. */
const WRITE_REVERT = '0x00000000000000000000000000000000000c0de4';
/** Writes slot 0 := 1 and returns it. */
const WRITE = '0x00000000000000000000000000000000000c0de5';
/** 1 ether, nonce 5. */
const RICH = '0x1000000000000000000000000000000000000001';
/** 256 wei. */
const POOR = '0x2000000000000000000000000000000000000002';

const GAS_CAP = 1_000_000n;
const SLOT0 = `0x${'0'.repeat(64)}`;
const word = (n: bigint | number) => `0x${n.toString(16).padStart(64, '0')}`;

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

let dir: string;
let node: NodeProcess;

async function call(method: string, params: unknown[]): Promise<RpcAnswer> {
  const r = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await r.json()) as RpcAnswer;
}

async function expectError(method: string, params: unknown[], code: number, message: string) {
  const a = await call(method, params);
  expect(a.error, `${method} ${JSON.stringify(params).slice(0, 200)}`).toEqual({ code, message });
}

async function expectResult(method: string, params: unknown[], result: unknown) {
  const a = await call(method, params);
  expect(a, `${method} ${JSON.stringify(params).slice(0, 200)}`).toEqual({ jsonrpc: '2.0', id: 1, result });
}

const INVALID_CALL = [-32602, 'Invalid call params'] as const;
const INVALID_BLOCK = [-32602, 'Invalid block param (block not found)'] as const;
const BLOCK_NOT_FOUND = [-32000, 'Block not found'] as const;
const SIMULATING = ['eth_call', 'eth_estimateGas', 'eth_createAccessList'] as const;

/** The state the failing requests must leave as it was. */
async function expectUntouched() {
  expect((await call('eth_getStorageAt', [READ, '0x0', 'latest'])).result).toBe(word(7));
  expect((await call('eth_getStorageAt', [WRITE, '0x0', 'latest'])).result).toBe(word(0));
  expect((await call('eth_getStorageAt', [WRITE_REVERT, '0x0', 'latest'])).result).toBe(word(0));
  expect((await call('eth_getBalance', [POOR, 'latest'])).result).toBe('0x100');
  expect((await call('eth_getBalance', [RICH, 'latest'])).result).toBe('0xde0b6b3a7640000');
  expect((await call('eth_getTransactionCount', [RICH, 'latest'])).result).toBe('0x5');
  expect((await call('eth_getCode', [VIEW, 'latest'])).result).toBe('0x602a60005260206000f3');
  expect((await call('eth_getCode', [POOR, 'latest'])).result).toBe('0x');
  expect((await call('eth_call', [{ to: READ }, 'latest'])).result).toBe(word(7));
  expect((await call('eth_call', [{ to: VIEW }, 'latest'])).result).toBe(word(42));
  expect((await call('eth_blockNumber', [])).result).toBe('0x0');
}

beforeAll(async () => {
  dir = tempDir();
  const genesis = {
    config: { chainId: 4243, ...CANCUN_AT_GENESIS },
    difficulty: '0x0',
    gasLimit: '0x1c9c380',
    baseFeePerGas: '0x7',
    timestamp: '0x0',
    alloc: {
      [VIEW]: { balance: '0x0', code: '0x602a60005260206000f3' },
      [GAS]: { balance: '0x0', code: '0x5a60005260206000f3' },
      [READ]: { balance: '0x0', code: '0x60005460005260206000f3', storage: { [SLOT0]: word(7) } },
      [WRITE_REVERT]: { balance: '0x0', code: '0x600160005560006000fd' },
      [WRITE]: { balance: '0x0', code: '0x600160005560005460005260206000f3' },
      [RICH]: { balance: '0xde0b6b3a7640000', nonce: '0x5' },
      [POOR]: { balance: '0x100' },
    },
  };
  const file = join(dir, 'genesis.json');
  writeFileSync(file, JSON.stringify(genesis));
  node = await startNode([
    `--genesis-file=${file}`,
    `--data-path=${join(dir, 'data')}`,
    `--rpc-gas-cap=${GAS_CAP}`,
  ]);
}, 90_000);

afterAll(async () => {
  await node?.stop();
  if (dir) removeDir(dir);
});

describe('call object members of the wrong shape: -32602 Invalid call params', () => {
  const malformed: Array<[string, unknown]> = [
    ['call object a string', '0x00'],
    ['call object an array', [VIEW]],
    ['call object a number', 1],
    ['from a number', { to: VIEW, from: 1 }],
    ['from an object', { to: VIEW, from: {} }],
    ['to a boolean', { to: true }],
    ['to of 21 bytes', { to: `0x${'11'.repeat(21)}` }],
    ['from of 21 bytes', { to: VIEW, from: `0x${'11'.repeat(21)}` }],
    ['to with a non-hex digit', { to: `0x${'1'.repeat(39)}g` }],
    ['gas an array', { to: VIEW, gas: ['0x1'] }],
    ['gas a fraction', { to: VIEW, gas: 1.5 }],
    ['gas not hex', { to: VIEW, gas: '0xzz' }],
    ['gas above 64 bits', { to: VIEW, gas: `0x1${'0'.repeat(16)}` }],
    ['gasPrice an object', { to: VIEW, gasPrice: {} }],
    ['gasPrice above 256 bits', { to: VIEW, gasPrice: `0x1${'0'.repeat(64)}` }],
    ['maxFeePerGas a number', { to: VIEW, maxFeePerGas: 7 }],
    ['maxPriorityFeePerGas not hex', { to: VIEW, maxPriorityFeePerGas: '0xg' }],
    ['value a boolean', { to: VIEW, value: false }],
    ['data a number', { to: VIEW, data: 5 }],
    ['data of odd length', { to: VIEW, data: '0x123' }],
    ['input of odd length', { to: VIEW, input: '0xabc' }],
    ['data not hex', { to: VIEW, data: '0xzz' }],
    ['input an array', { to: VIEW, input: ['0x00'] }],
    ['data and input both given and different', { to: VIEW, data: '0x12a7b914', input: '0x12a7b915' }],
    ['nonce not hex', { to: VIEW, nonce: 'zz' }],
    ['strict a word', { to: VIEW, strict: 'yes' }],
    ['accessList an object', { to: VIEW, accessList: {} }],
    [
      'accessList entry with a short storage key',
      { to: VIEW, accessList: [{ address: VIEW, storageKeys: ['0x01'] }] },
    ],
    [
      'accessList entry with a 21-byte address',
      { to: VIEW, accessList: [{ address: `0x${'11'.repeat(21)}` }] },
    ],
    ['blobVersionedHashes a string', { to: VIEW, blobVersionedHashes: '0x01' }],
    ['blobVersionedHashes entry of 31 bytes', { to: VIEW, blobVersionedHashes: [`0x${'01'.repeat(31)}`] }],
  ];
  for (const method of SIMULATING) {
    it(`${method}: each one`, async () => {
      for (const [, obj] of malformed) await expectError(method, [obj, 'latest'], ...INVALID_CALL);
      // No call object at all.
      await expectError(method, [null, 'latest'], ...INVALID_CALL);
    });
  }

  it('accepts what Besu accepts: 0x-less hex, odd-length quantities, equal data and input, short addresses padded', async () => {
    await expectResult('eth_call', [{ to: VIEW.slice(2), data: '12a7b914' }, 'latest'], word(42));
    await expectResult('eth_call', [{ to: VIEW, gas: '0x186a1', value: '0x0' }, 'latest'], word(42));
    await expectResult(
      'eth_call',
      [{ to: VIEW, data: '0x12a7b914', input: '0x12a7b914' }, 'latest'],
      word(42),
    );
    // A 19-byte address is left-padded, so it names the same account as its 20-byte form.
    await expectResult('eth_call', [{ to: `0x${VIEW.slice(4)}` }, 'latest'], word(42));
    await expectResult('eth_call', [{ to: VIEW, strict: false, nonce: '0x0' }, 'latest'], word(42));
  });
});

describe('state overrides of the wrong shape: -32602 Invalid call params', () => {
  const malformed: unknown[] = [
    'overrides',
    [VIEW],
    { [VIEW]: 'x' },
    { [`0x${'11'.repeat(21)}`]: { balance: '0x1' } },
    { nothex: { balance: '0x1' } },
    { [VIEW]: { balance: 5 } },
    { [VIEW]: { balance: '0xzz' } },
    { [VIEW]: { nonce: '0xzz' } },
    { [VIEW]: { code: '0x123' } },
    { [VIEW]: { code: 12 } },
    { [VIEW]: { state: [] } },
    { [VIEW]: { state: { '0x01': word(1) } } },
    { [VIEW]: { stateDiff: { [SLOT0]: '0x1' } } },
    { [VIEW]: { stateDiff: { [SLOT0]: 1 } } },
    { [VIEW]: { movePrecompileToAddress: `0x1234${'0'.repeat(40)}` } },
  ];
  for (const method of SIMULATING) {
    it(`${method}: each one, and the next call sees no override`, async () => {
      for (const o of malformed) await expectError(method, [{ to: READ }, 'latest', o], ...INVALID_CALL);
      await expectUntouched();
    });
  }
});

describe('block parameters', () => {
  const badTags: unknown[] = ['lates', '0xzz', '1x1', '', true, 12, ['latest'], { blockNumber: 'x' }];

  it('eth_call: malformed is -32602 Invalid block param, whatever the call object holds', async () => {
    for (const b of badTags) {
      await expectError('eth_call', [{ to: VIEW }, b], ...INVALID_BLOCK);
      await expectError('eth_call', [{ to: 1 }, b], ...INVALID_BLOCK);
    }
    await expectError('eth_call', [], ...INVALID_BLOCK);
    // The block is required and decoded first: its error wins over a malformed call object.
    await expectError('eth_call', [{ to: VIEW }], ...INVALID_BLOCK);
    await expectError('eth_call', [{ to: VIEW }, null], ...INVALID_BLOCK);
    await expectError('eth_call', ['0x8'], ...INVALID_BLOCK);
    await expectError('eth_call', [{ to: 1 }], ...INVALID_BLOCK);
  });

  it('eth_call: a block beyond the head is a null result (before the call object is read); a negative one is invalid', async () => {
    await expectResult('eth_call', [{ to: VIEW }, '0x5'], null);
    await expectResult('eth_call', [{ to: 1 }, '0x5'], null);
    await expectResult('eth_call', [{ to: VIEW }, { blockNumber: '0x5' }], null);
    await expectError('eth_call', [{ to: VIEW }, '-0x1'], -32602, 'Invalid block number params');
  });

  it('eth_call: an unknown hash is a null result (as Besu since 25.12), with or without requireCanonical', async () => {
    const unknown = `0x${'ab'.repeat(32)}`;
    await expectResult('eth_call', [{ to: VIEW }, unknown], null);
    await expectResult('eth_call', [{ to: 1 }, unknown], null);
    await expectResult('eth_call', [{ to: VIEW }, { blockHash: unknown }], null);
    await expectResult('eth_call', [{ to: VIEW }, { blockHash: unknown, requireCanonical: true }], null);
    await expectResult('eth_call', [{ to: VIEW }, { blockHash: unknown, requireCanonical: false }], null);
    // The genesis, by hash and as a canonical EIP-1898 object, answers.
    const genesis = (await call('eth_getBlockByNumber', ['0x0', false])).result as { hash: string };
    await expectResult('eth_call', [{ to: VIEW }, genesis.hash], word(42));
    await expectResult(
      'eth_call',
      [{ to: VIEW }, { blockHash: genesis.hash, requireCanonical: true }],
      word(42),
    );
    await expectResult('eth_call', [{ to: VIEW }, { blockNumber: '0x0' }], word(42));
  });

  for (const method of ['eth_estimateGas', 'eth_createAccessList'] as const) {
    it(`${method}: a number or tag only (pending when absent); hashes and objects are Invalid block param`, async () => {
      for (const b of badTags) await expectError(method, [{ to: VIEW }, b], ...INVALID_BLOCK);
      const genesis = (await call('eth_getBlockByNumber', ['0x0', false])).result as { hash: string };
      await expectError(method, [{ to: VIEW }, genesis.hash], ...INVALID_BLOCK);
      await expectError(method, [{ to: VIEW }, { blockHash: genesis.hash }], ...INVALID_BLOCK);
      await expectError(method, [{ to: VIEW }, { blockNumber: '0x0' }], ...INVALID_BLOCK);
      expect((await call(method, [{ to: VIEW }])).error).toBeUndefined();
      expect((await call(method, [{ to: VIEW }, 'pending'])).error).toBeUndefined();
    });

    it(`${method}: a block number that names no block is -32000 Block not found (the call object is read first)`, async () => {
      await expectError(method, [{ to: VIEW }, '0x5'], ...BLOCK_NOT_FOUND);
      await expectError(method, [{ to: VIEW }, '-0x1'], ...BLOCK_NOT_FOUND);
      await expectError(method, [{ to: 1 }, '0x5'], ...INVALID_CALL);
      await expectError(method, [], ...INVALID_CALL);
    });
  }

  it('safe and finalized before any were named: -39001 Unknown block', async () => {
    for (const method of SIMULATING) {
      await expectError(method, [{ to: VIEW }, 'finalized'], -39001, 'Unknown block');
      await expectError(method, [{ to: VIEW }, 'safe'], -39001, 'Unknown block');
    }
  });
});

describe('gas above --rpc-gas-cap', () => {
  it('eth_call runs with the cap instead', async () => {
    // GAS is the first instruction (2 gas) after the 21000 intrinsic.
    const capped = word(GAS_CAP - 21_002n);
    await expectResult('eth_call', [{ to: GAS, gas: '0xffffffff' }, 'latest'], capped);
    await expectResult('eth_call', [{ to: GAS }, 'latest'], capped);
    await expectResult('eth_call', [{ to: GAS, gas: '0x7530' }, 'latest'], word(30_000n - 21_002n));
  });

  it('eth_estimateGas and eth_createAccessList answer within it', async () => {
    const est = (await call('eth_estimateGas', [{ to: GAS, gas: '0xffffffff' }])).result as string;
    expect(BigInt(est)).toBeLessThanOrEqual(GAS_CAP);
    const al = (await call('eth_createAccessList', [{ to: GAS, gas: '0xffffffff' }, 'latest'])).result as {
      gasUsed: string;
    };
    expect(BigInt(al.gasUsed)).toBeLessThanOrEqual(GAS_CAP);
  });
});

describe('nonces of the simulated sender', () => {
  const low =
    'Nonce too low (transaction nonce 4 below sender account nonce 5 for sender 0x1000000000000000000000000000000000000001)';

  it('below the account nonce: -32001 with the detail, for each method', async () => {
    for (const method of SIMULATING) {
      await expectError(method, [{ from: RICH, to: VIEW, nonce: '0x4' }, 'latest'], -32001, low);
      await expectError(
        method,
        [{ from: RICH, to: VIEW, nonce: 0 }, 'latest'],
        -32001,
        low.replace('nonce 4', 'nonce 0'),
      );
    }
  });

  it('at or above it: the simulator allows future nonces', async () => {
    await expectResult('eth_call', [{ from: RICH, to: VIEW, nonce: '0x5' }, 'latest'], word(42));
    await expectResult('eth_call', [{ from: RICH, to: VIEW, nonce: '0x50' }, 'latest'], word(42));
    await expectResult('eth_estimateGas', [{ from: RICH, to: POOR, nonce: '0x50' }], '0x5208');
    expect(
      (await call('eth_createAccessList', [{ from: RICH, to: VIEW, nonce: '0x50' }, 'latest'])).error,
    ).toBeUndefined();
  });

  it('a stale nonce is reported only after the intrinsic gas and the balance', async () => {
    await expectError(
      'eth_call',
      [{ from: RICH, to: VIEW, nonce: '0x1', gas: '0x5207' }, 'latest'],
      -32003,
      'Intrinsic gas exceeds gas limit (intrinsic gas cost 21000 exceeds gas limit 20999)',
    );
    await expectError(
      'eth_call',
      [{ from: POOR, to: VIEW, nonce: '0x1', value: '0x101', strict: true }, 'latest'],
      -32004,
      `Upfront cost exceeds account balance (transaction up-front cost 0x101 exceeds transaction sender account balance 0x100 for sender ${POOR})`,
    );
    await expectUntouched();
  });
});

describe('sender balance', () => {
  const upfront = (cost: bigint) =>
    `Upfront cost exceeds account balance (transaction up-front cost 0x${cost.toString(16)} exceeds transaction sender account balance 0x100 for sender ${POOR})`;

  it('strict: true checks it even with no fee fields (value alone)', async () => {
    await expectError(
      'eth_call',
      [{ from: POOR, to: VIEW, value: '0x200', strict: true }, 'latest'],
      -32004,
      upfront(0x200n),
    );
  });

  it('fee fields turn the check on: gas limit × price (+ value)', async () => {
    await expectError(
      'eth_call',
      [{ from: POOR, to: VIEW, gasPrice: '0x10' }, 'latest'],
      -32004,
      upfront(GAS_CAP * 16n),
    );
    await expectError(
      'eth_call',
      [{ from: POOR, to: VIEW, maxFeePerGas: '0x10' }, 'latest'],
      -32004,
      upfront(GAS_CAP * 16n),
    );
    await expectError(
      'eth_call',
      [{ from: POOR, to: VIEW, gas: '0x7530', gasPrice: '0x10', value: '0x1' }, 'latest'],
      -32004,
      upfront(30_000n * 16n + 1n),
    );
  });

  it('no check of the gas cost when the price is zero or strict is false', async () => {
    await expectResult('eth_call', [{ from: POOR, to: VIEW, gasPrice: '0x0' }, 'latest'], word(42));
    // The call is then priced at zero, but the value it sends must be there (Besu).
    await expectError(
      'eth_call',
      [{ from: POOR, to: VIEW, value: '0x200' }, 'latest'],
      -32004,
      `Upfront cost exceeds account balance (transaction up-front cost 0x200 exceeds transaction sender account balance 0x100 for sender ${POOR})`,
    );
    await expectResult('eth_call', [{ from: POOR, to: VIEW, value: '0x100' }, 'latest'], word(42));
    await expectResult(
      'eth_call',
      [{ from: POOR, to: VIEW, gasPrice: '0x10', strict: false }, 'latest'],
      word(42),
    );
    await expectResult(
      'eth_call',
      [{ from: POOR, to: VIEW, maxFeePerGas: '0x10', strict: false }, 'latest'],
      word(42),
    );
    await expectResult('eth_call', [{ to: VIEW, gasPrice: '0x10', strict: false }, 'latest'], word(42));
  });

  it('changes nothing', async () => {
    await expectUntouched();
  });
});

describe('intrinsic gas above the gas limit: -32003', () => {
  it('eth_call and eth_createAccessList with the intrinsic cost in the detail', async () => {
    for (const method of ['eth_call', 'eth_createAccessList'] as const) {
      await expectError(
        method,
        [{ to: VIEW, gas: '0x5207' }, 'latest'],
        -32003,
        'Intrinsic gas exceeds gas limit (intrinsic gas cost 21000 exceeds gas limit 20999)',
      );
      // Four nonzero bytes of data cost 16 each.
      await expectError(
        method,
        [{ to: VIEW, gas: '0x5247', data: '0x12a7b914' }, 'latest'],
        -32003,
        'Intrinsic gas exceeds gas limit (intrinsic gas cost 21064 exceeds gas limit 21063)',
      );
    }
  });
});

describe('init code above 49152 bytes in a creation (Shanghai on): -32603 with the reason', () => {
  const tooLarge = `0x${'00'.repeat(49_153)}`;
  const atLimit = `0x${'00'.repeat(49_152)}`;
  const message = 'Internal error (Initcode size of 49153 exceeds maximum size of 49152)';

  for (const method of SIMULATING) {
    it(`${method}`, async () => {
      await expectError(method, [{ from: RICH, data: tooLarge }, 'latest'], -32603, message);
      // The size check comes before the intrinsic gas and the sender's nonce.
      await expectError(
        method,
        [{ from: RICH, data: tooLarge, gas: '0x5208', nonce: '0x1' }, 'latest'],
        -32603,
        message,
      );
    });
  }

  it('at the limit the creation runs', async () => {
    await expectResult('eth_call', [{ from: RICH, data: atLimit }, 'latest'], '0x');
  });
});

describe('eth_feeHistory', () => {
  it('block counts out of range or of the wrong type: -32602 Invalid block count params', async () => {
    for (const count of ['0x0', '0x401', 'zz', true, [], `0x1${'0'.repeat(16)}`]) {
      await expectError('eth_feeHistory', [count, 'latest', []], -32602, 'Invalid block count params');
    }
    await expectError('eth_feeHistory', [], -32602, 'Invalid block count params');
  });

  it('reward percentiles that are not a list of numbers: -32602 Invalid reward percentiles params', async () => {
    for (const p of ['x', [Number.NaN], [true], [[1]], ['abc']]) {
      await expectError('eth_feeHistory', ['0x1', 'latest', p], -32602, 'Invalid reward percentiles params');
    }
    // Besu takes any numbers in any order (sorted before use).
    for (const p of [[0, 10, 10, 100], [-1], [101], [50, 10], ['10']]) {
      expect((await call('eth_feeHistory', ['0x1', 'latest', p])).error).toBeUndefined();
    }
  });

  it('a malformed newest block: -32602 Invalid block param', async () => {
    await expectError('eth_feeHistory', ['0x1', 'lates', []], ...INVALID_BLOCK);
    await expectError('eth_feeHistory', ['0x1', `0x${'ab'.repeat(32)}`, []], ...INVALID_BLOCK);
  });
});

describe('eth_getMinerDataByBlock*', () => {
  it('an unknown block is a null result; a malformed one an invalid-params error', async () => {
    await expectResult('eth_getMinerDataByBlockHash', [`0x${'ab'.repeat(32)}`], null);
    await expectResult('eth_getMinerDataByBlockNumber', ['0x5'], null);
    await expectError('eth_getMinerDataByBlockHash', ['0x1234'], -32602, 'Invalid block hash params');
    await expectError('eth_getMinerDataByBlockHash', [], -32602, 'Invalid block hash params');
    await expectError('eth_getMinerDataByBlockNumber', ['lates'], ...INVALID_BLOCK);
  });
});

describe('nothing is left behind', () => {
  it('writes of successful and reverted calls are dropped', async () => {
    await expectResult('eth_call', [{ to: WRITE }, 'latest'], word(1));
    const reverted = await call('eth_call', [{ to: WRITE_REVERT }, 'latest']);
    expect(reverted.error?.message).toBe('Execution reverted');
    await expectUntouched();
  });

  it('overrides of a call that then fails validation are not seen by the next call', async () => {
    const overrides = {
      [READ]: { stateDiff: { [SLOT0]: word(0x99) } },
      [VIEW]: { code: '0x60005460005260206000f3' },
      [POOR]: { balance: '0x0', nonce: '0x9' },
    };
    for (const method of SIMULATING) {
      await expectError(
        method,
        [{ from: POOR, to: READ, gasPrice: '0x10', strict: true }, 'latest', overrides],
        -32004,
        `Upfront cost exceeds account balance (transaction up-front cost 0x${(GAS_CAP * 16n).toString(16)} exceeds transaction sender account balance 0x0 for sender ${POOR})`,
      );
      await expectError(
        method,
        [{ from: POOR, to: READ, nonce: '0x1' }, 'latest', overrides],
        -32001,
        `Nonce too low (transaction nonce 1 below sender account nonce 9 for sender ${POOR})`,
      );
      await expectUntouched();
    }
  });

  it('overrides of a successful call apply to it alone', async () => {
    await expectResult(
      'eth_call',
      [{ to: READ }, 'latest', { [READ]: { stateDiff: { [SLOT0]: word(0x99) } } }],
      word(0x99),
    );
    await expectResult('eth_call', [{ to: READ }, 'latest', { [READ]: { state: {} } }], word(0));
    await expectResult(
      'eth_call',
      [{ to: VIEW }, 'latest', { [VIEW]: { code: '0x60005460005260206000f3' } }],
      word(0),
    );
    await expectUntouched();
  });

  it('concurrent good and bad requests do not see each other', async () => {
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      jobs.push(
        call('eth_call', [{ to: READ }, 'latest', { [READ]: { stateDiff: { [SLOT0]: word(i + 100) } } }]),
      );
      jobs.push(
        call('eth_call', [{ from: POOR, to: READ, nonce: '0x0' }, 'latest', { [POOR]: { nonce: '0x3' } }]),
      );
      jobs.push(call('eth_call', [{ to: READ }, 'latest']));
    }
    const answers = (await Promise.all(jobs)) as RpcAnswer[];
    for (let i = 0; i < 20; i++) {
      expect(answers[3 * i]?.result).toBe(word(i + 100));
      expect(answers[3 * i + 1]?.error?.code).toBe(-32001);
      expect(answers[3 * i + 2]?.result).toBe(word(7));
    }
    await expectUntouched();
  });
});
