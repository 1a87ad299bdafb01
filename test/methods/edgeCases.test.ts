/**
 * Behaviour the fixture suites do not pin down: block-parameter errors, the logs range limit, tags
 * before the consensus layer sets them, EIP-2124 fork hashes of mainnet.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkHash } from '../../src/chain/forkId.js';
import { CONFORMANCE, openTestChain, type TestChain } from './chain.js';

const CONTRACT = '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df';

describe('edge cases on the rpc-compat chain', () => {
  let chain: TestChain;
  beforeAll(async () => {
    const dir = join(CONFORMANCE, 'rpc-compat');
    chain = await openTestChain({
      genesis: join(dir, 'genesis.json'),
      blocks: join(dir, 'chain.rlp'),
      config: { rpcMaxLogsRange: 10 },
    });
  });
  afterAll(async () => {
    await chain?.close();
  });

  it('safe and finalized are -39001 until the consensus layer names them', async () => {
    expect((await chain.call('eth_getBlockByNumber', ['safe', false])).error?.code).toBe(-39001);
    expect((await chain.call('eth_getBalance', [CONTRACT, 'finalized'])).error?.code).toBe(-39001);
  });

  it('state methods: unknown hash null, negative number -32602, beyond the head null', async () => {
    const unknown = `0x${'00'.repeat(28)}deadbeef`;
    // As Besu since 25.12 (with the other clients): a hash that names no block reads as no block.
    for (const [method, params] of [
      ['eth_getBalance', [CONTRACT, unknown]],
      ['eth_getCode', [CONTRACT, unknown]],
      ['eth_getStorageAt', [CONTRACT, '0x0', unknown]],
      ['eth_getTransactionCount', [CONTRACT, { blockHash: unknown }]],
      ['eth_getProof', [CONTRACT, [], unknown]],
      ['eth_call', [{ to: CONTRACT }, unknown]],
    ] as const) {
      expect(await chain.call(method, [...params]), method).toEqual({ result: null });
    }
    expect((await chain.call('eth_getCode', [CONTRACT, '-0x1'])).error?.message).toBe(
      'Invalid block number params',
    );
    expect(await chain.call('eth_getTransactionCount', [CONTRACT, '0x100'])).toEqual({ result: null });
    expect(await chain.call('eth_getBalance', [CONTRACT, { blockNumber: '0x2c' }])).toEqual({
      result: '0x56',
    });
  });

  it('pending reads the head', async () => {
    const latest = await chain.call('eth_getBlockByNumber', ['latest', false]);
    expect(await chain.call('eth_getBlockByNumber', ['pending', false])).toEqual(latest);
  });

  it('eth_getLogs refuses ranges wider than --rpc-max-logs-range, not block hashes', async () => {
    expect((await chain.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x20' }])).error).toEqual({
      code: -32005,
      message: 'Requested range exceeds maximum RPC range limit',
    });
    expect(
      (await chain.call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0xb', address: CONTRACT }])).error,
    ).toBeUndefined();
  });

  it('eth_getLogs: address as a single string, OR-ed topics, wildcards', async () => {
    const all = (await chain.call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x4', address: CONTRACT }]))
      .result as {
      topics: string[];
    }[];
    expect(all.length).toBe(2);
    const [a, b] = all as [{ topics: string[] }, { topics: string[] }];
    const either = await chain.call('eth_getLogs', [
      { fromBlock: '0x1', toBlock: '0x4', topics: [null, [a.topics[1], b.topics[1]]] },
    ]);
    expect(either.result).toEqual(all);
    const tooMany = await chain.call('eth_getLogs', [
      { fromBlock: '0x1', toBlock: '0x4', topics: [null, null, null] },
    ]);
    expect(tooMany.result).toEqual([]);
    expect((await chain.call('eth_getLogs', [{ topics: ['0x12'] }])).error?.code).toBe(-32602);
  });

  it('eth_coinbase without --miner-coinbase', async () => {
    expect((await chain.call('eth_coinbase')).error).toEqual({
      code: -32000,
      message: 'Coinbase must be explicitly specified',
    });
  });

  it('web3 and net', async () => {
    expect(await chain.call('web3_sha3', ['0x68656c6c6f20776f726c64'])).toEqual({
      result: '0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad',
    });
    // No P2P network in this in-process chain: not listening, as Besu with --p2p-enabled=false.
    expect(await chain.call('net_listening')).toEqual({ result: false });
    expect(await chain.call('net_peerCount')).toEqual({ result: '0x0' });
    expect(await chain.call('eth_accounts')).toEqual({ result: [] });
  });

  it('uncle methods on blocks without uncles', async () => {
    expect(await chain.call('eth_getUncleCountByBlockNumber', ['0x1'])).toEqual({ result: '0x0' });
    expect(await chain.call('eth_getUncleByBlockNumberAndIndex', ['0x1', '0x0'])).toEqual({ result: null });
  });
});

describe('EIP-2124 fork hashes', () => {
  // Mainnet: the values EIP-2124 and the clients publish.
  const genesis = Buffer.from('d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3', 'hex');
  const points = {
    blocks: [
      1150000n,
      1920000n,
      2463000n,
      2675000n,
      4370000n,
      7280000n,
      9069000n,
      9200000n,
      12244000n,
      12965000n,
      13773000n,
      15050000n,
    ],
    timestamps: [1681338455n, 1710338135n, 1746612311n],
  };
  it.each([
    [0n, 0n, '0xfc64ec04'],
    [1150000n, 0n, '0x97c2c34c'],
    [15050000n, 0n, '0xf0afd0e3'],
    [15050000n, 1681338455n, '0xdce96c2d'],
    [15050000n, 1710338135n, '0x9f3d2254'],
    [15050000n, 1746612311n, '0xc376cf8b'],
  ])('block %s time %s', (number, time, expected) => {
    expect(forkHash(genesis, points, number, time)).toBe(expected);
  });
});
