/**
 * The external conformance suites for the execution methods (eth_call, eth_estimateGas,
 * eth_createAccessList, eth_gasPrice, eth_maxPriorityFeePerGas, eth_getMinerData*), replayed with
 * the shared runner against the real CLI on the chains each suite was recorded on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONFORMANCE,
  type NodeProcess,
  removeDir,
  rpc,
  runCli,
  runConformance,
  startNode,
  tempDir,
} from '../helpers/node.js';

const EXECUTION_METHODS = new Set([
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_getMinerDataByBlockHash',
  'eth_getMinerDataByBlockNumber',
]);

/** Cases left out, each with its reason. */
const NOT_YET: Record<string, string> = {};

function firstMethodOfIo(path: string): string | undefined {
  const line = readFileSync(path, 'utf8')
    .split('\n')
    .find((l) => l.trim().startsWith('>>'));
  return line ? (JSON.parse(line.trim().slice(2)) as { method: string }).method : undefined;
}

describe('rpc-compat suite (execution methods)', () => {
  let dir: string;
  let node: NodeProcess;
  const rc = join(CONFORMANCE, 'rpc-compat');
  const cases: string[] = [];
  for (const folder of readdirSync(rc).sort()) {
    if (folder.includes('.')) continue;
    for (const f of readdirSync(join(rc, folder)).sort()) {
      const rel = `${folder}/${f}`;
      if (!f.endsWith('.io') || NOT_YET[rel]) continue;
      const m = firstMethodOfIo(join(rc, rel));
      if (m && EXECUTION_METHODS.has(m)) cases.push(rel);
    }
  }

  beforeAll(async () => {
    dir = tempDir();
    const genesis = `--genesis-file=${join(rc, 'genesis.json')}`;
    await runCli([
      genesis,
      `--data-path=${dir}`,
      'blocks',
      'import',
      `--from=${join(rc, 'chain.rlp')}`,
      '--skip-pow-validation-enabled',
    ]);
    node = await startNode([genesis, `--data-path=${dir}`, '--rpc-http-api=ETH,NET,WEB3,DEBUG']);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it(`passes every execution case (${cases.length})`, async () => {
    const r = await runConformance(
      node.url,
      cases.map((c) => join(rc, c)),
    );
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(cases.length);
  });
});

describe('Besu eth/ spec cases (execution methods)', () => {
  let dir: string;
  let node: NodeProcess;
  const besu = join(CONFORMANCE, 'besu');
  const cases: string[] = [];
  for (const f of readdirSync(join(besu, 'eth')).sort()) {
    if (!f.endsWith('.json') || NOT_YET[f]) continue;
    const spec = JSON.parse(readFileSync(join(besu, 'eth', f), 'utf8')) as {
      request: { method?: string } | { method: string }[];
    };
    const reqs = Array.isArray(spec.request) ? spec.request : [spec.request];
    if (reqs.every((r) => r.method && EXECUTION_METHODS.has(r.method))) cases.push(f);
  }

  beforeAll(async () => {
    dir = tempDir();
    const genesis = `--genesis-file=${join(besu, 'chain-data/hive/testGenesis.json')}`;
    await runCli([
      genesis,
      `--data-path=${dir}`,
      '--network-id=123',
      'blocks',
      'import',
      `--from=${join(besu, 'chain-data/hive/testBlockchain.blocks')}`,
      '--skip-pow-validation-enabled',
    ]);
    node = await startNode([
      genesis,
      `--data-path=${dir}`,
      '--network-id=123',
      '--rpc-http-api=ETH,NET,WEB3,DEBUG,TRACE',
      '--rpc-http-max-batch-size=10',
      '--min-gas-price=1',
      '--rpc-gas-cap=0',
    ]);
  });
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it(`passes every execution case (${cases.length})`, async () => {
    const r = await runConformance(
      node.url,
      cases.map((c) => join(besu, 'eth', c)),
    );
    expect(r.failed, r.output).toEqual([]);
    expect(r.passed.length).toBe(cases.length);
  });

  it('reports miner data that adds up to what block 1 paid its coinbase', async () => {
    const data = await rpc<Record<string, string>>(node.url, 'eth_getMinerDataByBlockNumber', ['0x1']);
    const balance = await rpc<string>(node.url, 'eth_getBalance', [data.coinbase, '0x1']);
    expect(data.netBlockReward).toBe(balance);
    expect(BigInt(data.staticBlockReward)).toBe(5n * 10n ** 18n);
  });

  it('answers eth_gasPrice within its bounds and eth_maxPriorityFeePerGas', async () => {
    expect(BigInt(await rpc<string>(node.url, 'eth_gasPrice'))).toBeGreaterThanOrEqual(1n);
    expect(await rpc<string>(node.url, 'eth_maxPriorityFeePerGas')).toMatch(/^0x[0-9a-f]+$/);
  });

  it('leaves nothing behind: overrides and writes of one call are gone for the next', async () => {
    const target = '0x6295ee1b4f6dd65047762f924ecd367c17eabf8f';
    const call = { to: target, from: '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b', data: '0x12a7b914' };
    const code = await rpc<string>(node.url, 'eth_getCode', [target, 'latest']);
    const plain = await rpc<string>(node.url, 'eth_call', [call, 'latest']);
    // Code that stores 1 at slot 0, then returns 32 bytes of 0x2a.
    const override = { [target]: { code: '0x600160005560206000f3', balance: '0x1' } };
    const overridden = await rpc<string>(node.url, 'eth_call', [call, 'latest', override]);
    expect(overridden).not.toBe(plain);
    expect(await rpc<string>(node.url, 'eth_call', [call, 'latest'])).toBe(plain);
    expect(await rpc<string>(node.url, 'eth_getCode', [target, 'latest'])).toBe(code);
    expect(await rpc<string>(node.url, 'eth_getStorageAt', [target, '0x0', 'latest'])).toBe(
      await rpc<string>(node.url, 'eth_getStorageAt', [target, '0x0', '0x20']),
    );
  });

  it('answers concurrent calls at one block alike', async () => {
    const call = { to: '0x6295ee1b4f6dd65047762f924ecd367c17eabf8f', data: '0x12a7b914' };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => rpc<string>(node.url, 'eth_call', [call, 'latest'])),
    );
    expect(new Set(results).size).toBe(1);
  });
});
