/**
 * Durability: an import killed with SIGKILL part-way leaves a consistent chain; the restarted
 * node serves what was committed, and importing again finishes with the right head.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GeneratedChain, generateChain } from '../../bench/genchain.mjs';
import { BIN, removeDir, rpc, runCli, startNode, tempDir } from '../helpers/node.js';

describe('SIGKILL during import', () => {
  const dirs: string[] = [];
  let chain: GeneratedChain;
  beforeAll(async () => {
    const out = tempDir();
    dirs.push(out);
    chain = await generateChain({ blocks: 150, txsPerBlock: 10, accounts: 16, outDir: out });
  });
  afterAll(() => {
    for (const d of dirs) removeDir(d);
  });

  it('restarts with a consistent chain and finishes the import', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const genesis = `--genesis-file=${chain.genesisPath}`;
    const args = [
      BIN,
      genesis,
      `--data-path=${dir}`,
      '--logging=DEBUG',
      'blocks',
      'import',
      `--from=${chain.chainPath}`,
    ];
    // Kill as soon as the debug log reports the tenth imported block.
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const killed = new Promise<void>((res) => {
      const onData = (d: Buffer) => {
        out += d;
        if (
          (out.match(/Imported block/g) ?? []).length >= 10 &&
          child.pid !== undefined &&
          child.exitCode === null
        ) {
          process.kill(child.pid, 'SIGKILL');
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', () => res());
    });
    await killed;
    expect(child.signalCode).toBe('SIGKILL');

    // The restarted node serves a consistent chain: its head block and that block's state are readable.
    const node = await startNode([genesis, `--data-path=${dir}`]);
    try {
      const head = await rpc<{ number: string; hash: string }>(node.url, 'eth_getBlockByNumber', [
        'latest',
        false,
      ]);
      const n = Number(head.number);
      expect(n).toBeGreaterThanOrEqual(10);
      expect(n).toBeLessThan(chain.headNumber);
      const byHash = await rpc<{ number: string }>(node.url, 'eth_getBlockByHash', [head.hash, false]);
      expect(byHash.number).toBe(head.number);
      const receipts = await rpc<unknown[]>(node.url, 'eth_getBlockReceipts', [head.number]);
      expect(receipts.length).toBeGreaterThan(0);
    } finally {
      await node.stop();
    }

    // Importing the same file again skips what is there and completes the chain.
    await runCli([genesis, `--data-path=${dir}`, 'blocks', 'import', `--from=${chain.chainPath}`]);
    const node2 = await startNode([genesis, `--data-path=${dir}`]);
    try {
      const head = await rpc<{ number: string; hash: string }>(node2.url, 'eth_getBlockByNumber', [
        'latest',
        false,
      ]);
      expect(Number(head.number)).toBe(chain.headNumber);
      expect(head.hash).toBe(chain.headHash);
    } finally {
      await node2.stop();
    }
  });
});
