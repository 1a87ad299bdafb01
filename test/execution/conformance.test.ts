/**
 * The external conformance suites for the execution methods (eth_call, eth_estimateGas,
 * eth_createAccessList, eth_simulateV1, eth_gasPrice, eth_maxPriorityFeePerGas, eth_getMinerData*), replayed with
 * the shared runner against the real CLI on the chains each suite was recorded on.
 */
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import {
  BESU_ETH_DIR,
  besuEthCases,
  besuSimulateCases,
  HIVE_CHAIN,
  RPC_COMPAT_CHAIN,
  RPC_COMPAT_DIR,
  rpcCompatCases,
  SIMULATE_CHAIN,
  useImportedNode,
} from '../helpers/conformance.js';
import { rpc, runConformance } from '../helpers/node.js';

const EXECUTION_METHODS = new Set([
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_getMinerDataByBlockHash',
  'eth_getMinerDataByBlockNumber',
  'eth_simulateV1',
]);

/** Cases left out (none at present); each entry would carry its reason in a comment. */
const NOT_YET = new Set<string>();

describe('rpc-compat suite (execution methods)', () => {
  const cases = rpcCompatCases(EXECUTION_METHODS, NOT_YET);
  const node = useImportedNode(RPC_COMPAT_CHAIN, ['--rpc-http-api=ETH,NET,WEB3,DEBUG']);

  it(`passes every execution case (${cases.length})`, async () => {
    const r = await runConformance(
      node().url,
      cases.map((c) => join(RPC_COMPAT_DIR, c)),
    );
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(cases.length);
  });
});

describe('Besu eth/ spec cases (execution methods)', () => {
  const cases = besuEthCases(EXECUTION_METHODS, NOT_YET);
  const node = useImportedNode(HIVE_CHAIN, [
    '--rpc-http-api=ETH,NET,WEB3,DEBUG,TRACE',
    '--rpc-http-max-batch-size=10',
    '--min-gas-price=1',
    '--rpc-gas-cap=0',
  ]);

  it(`passes every execution case (${cases.length})`, async () => {
    const r = await runConformance(
      node().url,
      cases.map((c) => join(BESU_ETH_DIR, c)),
    );
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(cases.length);
  });

  it('reports miner data that adds up to what block 1 paid its coinbase', async () => {
    const data = await rpc<Record<string, string>>(node().url, 'eth_getMinerDataByBlockNumber', ['0x1']);
    const balance = await rpc<string>(node().url, 'eth_getBalance', [data.coinbase, '0x1']);
    expect(data.netBlockReward).toBe(balance);
    expect(BigInt(data.staticBlockReward)).toBe(5n * 10n ** 18n);
  });

  it('answers eth_gasPrice within its bounds and eth_maxPriorityFeePerGas', async () => {
    expect(BigInt(await rpc<string>(node().url, 'eth_gasPrice'))).toBeGreaterThanOrEqual(1n);
    expect(await rpc<string>(node().url, 'eth_maxPriorityFeePerGas')).toMatch(/^0x[0-9a-f]+$/);
  });

  it('leaves nothing behind: overrides and writes of one call are gone for the next', async () => {
    const target = '0x6295ee1b4f6dd65047762f924ecd367c17eabf8f';
    const call = { to: target, from: '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b', data: '0x12a7b914' };
    const code = await rpc<string>(node().url, 'eth_getCode', [target, 'latest']);
    const plain = await rpc<string>(node().url, 'eth_call', [call, 'latest']);
    // Code that stores 1 at slot 0, then returns 32 bytes of 0x2a.
    const override = { [target]: { code: '0x600160005560206000f3', balance: '0x1' } };
    const overridden = await rpc<string>(node().url, 'eth_call', [call, 'latest', override]);
    expect(overridden).not.toBe(plain);
    expect(await rpc<string>(node().url, 'eth_call', [call, 'latest'])).toBe(plain);
    expect(await rpc<string>(node().url, 'eth_getCode', [target, 'latest'])).toBe(code);
    expect(await rpc<string>(node().url, 'eth_getStorageAt', [target, '0x0', 'latest'])).toBe(
      await rpc<string>(node().url, 'eth_getStorageAt', [target, '0x0', '0x20']),
    );
  });

  it('answers concurrent calls at one block alike', async () => {
    const call = { to: '0x6295ee1b4f6dd65047762f924ecd367c17eabf8f', data: '0x12a7b914' };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => rpc<string>(node().url, 'eth_call', [call, 'latest'])),
    );
    expect(new Set(results).size).toBe(1);
  });
});

/** The whole reply of one request: `result` or `error`. */
async function reply(
  url: string,
  method: string,
  params: unknown[],
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await r.json()) as { result?: unknown; error?: { code: number; message: string } };
}

describe("Besu's eth_simulateV1 specs (their own chain)", () => {
  const node = useImportedNode(SIMULATE_CHAIN, ['--rpc-gas-cap=100000000']);
  const AUTHORITY = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
  const DELEGATE = '0xcccccccccccccccccccccccccccccccccccccccc';
  // SELFBALANCE, stored at 0 and returned as one word: what the authority runs once delegated.
  const RETURN_SELF_BALANCE = '0x4760005260206000f3';
  const CHAIN_ID = '0xc72dd9d5e883e';
  const delegation = { chainId: CHAIN_ID, address: DELEGATE, nonce: '0x0', authority: AUTHORITY };

  it('passes all three, member order included', async () => {
    const cases = besuSimulateCases();
    expect(cases).toHaveLength(3);
    const r = await runConformance(node().url, cases, ['--strict-key-order']);
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed).toHaveLength(3);
  });

  it('eth_call and eth_estimateGas apply an authorization that names its authority, and keep nothing', async () => {
    const url = node().url;
    const overrides = { [AUTHORITY]: { balance: '0x1234' }, [DELEGATE]: { code: RETURN_SELF_BALANCE } };
    const call = { to: AUTHORITY, authorizationList: [delegation] };
    const delegated = await rpc<string>(url, 'eth_call', [call, 'latest', overrides]);
    expect(BigInt(delegated)).toBe(0x1234n);
    expect(await rpc<string>(url, 'eth_call', [{ to: AUTHORITY }, 'latest', overrides])).toBe('0x');
    // 21000 + 25000 per authorization + the delegate's code, less the refund for an existing authority.
    const gas = BigInt(await rpc<string>(url, 'eth_estimateGas', [call, 'latest', overrides]));
    expect(gas).toBeGreaterThan(46_000n - 12_500n);
    expect(await rpc<string>(url, 'eth_getCode', [AUTHORITY, 'latest'])).toBe('0x');
    expect(await rpc<string>(url, 'eth_getTransactionCount', [AUTHORITY, 'latest'])).toBe('0x0');
  });

  it('refuses an authorization that names its authority and also carries a signature', async () => {
    const both = { ...delegation, yParity: '0x0', r: '0x1', s: '0x1' };
    const call = { to: AUTHORITY, authorizationList: [both] };
    const r = await reply(node().url, 'eth_call', [call, 'latest']);
    expect(r.error).toEqual({ code: -32602, message: 'Invalid call params' });
    const sim = await reply(node().url, 'eth_simulateV1', [
      { blockStateCalls: [{ calls: [call] }] },
      'latest',
    ]);
    expect(sim.error?.code).toBe(-32602);
  });

  it("answers the block-sequence errors with Besu's messages", async () => {
    const url = node().url;
    const head = await rpc<{ number: string; timestamp: string }>(url, 'eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    const n = BigInt(head.number);
    const t = BigInt(head.timestamp);
    const hex = (v: bigint) => `0x${v.toString(16)}`;
    const timestamps = await reply(url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          { blockOverrides: { time: hex(t + 24n) } },
          { blockOverrides: { time: hex(t + 12n) } },
        ],
      },
      'latest',
    ]);
    expect(timestamps.error).toEqual({
      code: -38021,
      message: `Timestamp is invalid. Trying to add a call at timestamp ${t + 12n}, while current timestamp is ${t + 24n}.`,
    });
    const numbers = await reply(url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          { blockOverrides: { number: hex(n + 3n) } },
          { blockOverrides: { number: hex(n + 2n) } },
        ],
      },
      'latest',
    ]);
    expect(numbers.error).toEqual({
      code: -38020,
      message: `Block number is invalid. Trying to add a call at block number ${n + 2n}, while current block number is ${n + 3n}.`,
    });
    const far = await reply(url, 'eth_simulateV1', [
      { blockStateCalls: [{ blockOverrides: { number: hex(n + 257n) } }] },
      'latest',
    ]);
    expect(far.error).toEqual({
      code: -38026,
      message: `Block number ${n + 257n} exceeds the limit of ${n + 256n} (header: ${n} + MAX_BLOCK_CALL_SIZE: 256)`,
    });
  });

  it('answers init code over the EIP-3860 limit with -38025 and runs one at the limit', async () => {
    const url = node().url;
    const from = '0xc000000000000000000000000000000000000000';
    const create = (size: number) => ({
      blockStateCalls: [{ calls: [{ from, data: `0x${'00'.repeat(size)}` }] }],
    });
    const tooLarge = await reply(url, 'eth_simulateV1', [create(49_153), 'latest']);
    expect(tooLarge.error?.code).toBe(-38025);
    expect(tooLarge.error?.message).toMatch(/^Max init code size exceeded/);
    const atLimit = await reply(url, 'eth_simulateV1', [create(49_152), 'latest']);
    expect((atLimit.result as Array<{ calls: Array<{ status: string }> }>)[0]?.calls[0]?.status).toBe('0x1');
  });

  it('chains trie logs: each block starts from the state the previous one left', async () => {
    const url = node().url;
    const [c0, c1, c2] = ['0xc0', '0xc1', '0xc2'].map((p) => p.padEnd(42, '0'));
    const blocks = await rpc<Array<{ hash: string; trieLog?: string }>>(url, 'eth_simulateV1', [
      {
        returnTrieLog: true,
        blockStateCalls: [
          {
            stateOverrides: { [c0 as string]: { balance: '0x3e8' } },
            calls: [{ from: c0, to: c1, value: '0x3e8' }],
          },
          { calls: [{ from: c1, to: c2, value: '0x3e8' }] },
        ],
      },
      'latest',
    ]);
    expect(blocks).toHaveLength(2);
    // address → [prior, updated] of its account change, per block.
    const accountChanges = blocks.map((b) => {
      const decoded = RLP.decode(b.trieLog as string) as unknown as [Uint8Array, ...Uint8Array[][]];
      const [hash, ...entries] = decoded;
      expect(`0x${Buffer.from(hash).toString('hex')}`).toBe(b.hash);
      const addresses = entries.map((e) => `0x${Buffer.from(e[0] as Uint8Array).toString('hex')}`);
      expect(addresses).toEqual([...addresses].sort());
      const out = new Map<string, [Uint8Array, Uint8Array]>();
      entries.forEach((e, i) => {
        const change = e[1] as unknown as Uint8Array[];
        out.set(addresses[i] as string, [RLP.encode(change[0] as never), RLP.encode(change[1] as never)]);
      });
      return out;
    });
    const [first, second] = accountChanges;
    // c1 was absent, received 0x3e8 in the first block and sent it on in the second.
    expect(first?.get(c1 as string)?.[0]).toEqual(RLP.encode(new Uint8Array()));
    expect(second?.get(c1 as string)?.[0]).toEqual(first?.get(c1 as string)?.[1]);
    expect(second?.get(c2 as string)?.[0]).toEqual(RLP.encode(new Uint8Array()));
    const plain = await rpc<Array<Record<string, unknown>>>(url, 'eth_simulateV1', [
      { blockStateCalls: [{ calls: [] }] },
      'latest',
    ]);
    expect(plain[0]).not.toHaveProperty('trieLog');
  });
});
