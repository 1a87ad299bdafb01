/**
 * The external conformance suites for the execution methods (eth_call, eth_estimateGas,
 * eth_createAccessList, eth_simulateV1, eth_gasPrice, eth_maxPriorityFeePerGas, eth_getMinerData*), replayed with
 * the shared runner against the real CLI on the chains each suite was recorded on.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BESU_ETH_DIR,
  besuEthCases,
  HIVE_CHAIN,
  RPC_COMPAT_CHAIN,
  RPC_COMPAT_DIR,
  rpcCompatCases,
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
