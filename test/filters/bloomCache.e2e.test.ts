/**
 * The log bloom cache through the CLI and JSON-RPC of the built node: `operator
 * generate-log-bloom-cache`, admin_generateLogBloomCache, admin_logsRemoveCache, admin_logsRepairCache
 * with Besu's answers and errors, and eth_getLogs over the cached chain.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RARE_TOPIC, writeLongChain } from '../../bench/longchain.mjs';
import { type NodeProcess, removeDir, runCliStatus, startNode, tempDir } from '../helpers/node.js';

const BLOCKS = 1500;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

async function call(url: string, method: string, params: unknown[]) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await r.json()) as { result?: unknown; error?: { code: number; message: string } };
}

describe('log bloom cache from the CLI and JSON-RPC', () => {
  let dir: string;
  let genesis: string;
  let rare: number[];
  let node: NodeProcess | undefined;
  const segment0 = () => join(dir, 'caches/logBloom-0.cache');

  beforeAll(async () => {
    dir = tempDir('alder-bloom-e2e-');
    ({ genesisFile: genesis, rare } = await writeLongChain({
      dataPath: dir,
      blocks: BLOCKS,
      rareEvery: 500,
      rareOffset: 77,
    }));
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
    removeDir(dir);
  });

  it('operator generate-log-bloom-cache writes the segment file offline', async () => {
    const bad = await runCliStatus([
      `--genesis-file=${genesis}`,
      `--data-path=${dir}`,
      'operator',
      'generate-log-bloom-cache',
      '--start-block=5',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Start block must be an even increment of 100000');
    const ok = await runCliStatus([
      `--genesis-file=${genesis}`,
      `--data-path=${dir}`,
      'operator',
      'generate-log-bloom-cache',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`Wrote the log blooms of blocks 0 to ${BLOCKS}`);
    expect(statSync(segment0()).size).toBe((BLOCKS + 1) * 256);
  });

  it('answers the admin cache methods as Besu does, and eth_getLogs finds the rare logs', async () => {
    node = await startNode([
      `--genesis-file=${genesis}`,
      `--data-path=${dir}`,
      '--auto-log-bloom-caching-enabled=false',
      '--rpc-http-api=ADMIN,ETH',
    ]);
    const url = node.url;
    expect((await call(url, 'admin_generateLogBloomCache', [])).result).toEqual({
      startBlock: '0x0',
      endBlock: '0x0',
      currentBlock: '0x0',
      caching: false,
      requestAccepted: false,
    });
    expect((await call(url, 'admin_generateLogBloomCache', ['0x10', '0x5'])).result).toMatchObject({
      requestAccepted: false,
    });
    expect((await call(url, 'admin_generateLogBloomCache', ['bad'])).error).toEqual({
      code: -32602,
      message: 'Invalid block param (block not found)',
    });
    expect((await call(url, 'admin_logsRemoveCache', ['0x10', '0x5'])).error).toEqual({
      code: -32602,
      message: 'Invalid block number params',
    });
    expect((await call(url, 'admin_logsRemoveCache', ['0x999999'])).error?.code).toBe(-32603);
    expect((await call(url, 'admin_logsRemoveCache', [])).result).toEqual({ Status: 'Cache Removed' });
    expect(existsSync(segment0())).toBe(false);
    const accepted = await call(url, 'admin_generateLogBloomCache', ['earliest', 'latest']);
    expect(accepted.result).toMatchObject({ startBlock: '0x0', endBlock: 'latest', requestAccepted: true });
    const deadline = Date.now() + 20_000;
    while (!(existsSync(segment0()) && statSync(segment0()).size === (BLOCKS + 1) * 256)) {
      if (Date.now() > deadline) throw new Error('cache not generated');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await call(url, 'admin_logsRepairCache', [])).result).toEqual({ Status: 'Started' });
    expect((await call(url, 'admin_logsRepairCache', ['0xzz'])).error).toEqual({
      code: -32602,
      message: 'Invalid block number params',
    });
    const logs = (
      await call(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [hex(RARE_TOPIC)] }])
    ).result as { blockNumber: string }[];
    expect(logs.map((l) => Number(l.blockNumber))).toEqual(rare);
  });
});
