/**
 * Durability: an import killed with SIGKILL part-way leaves a consistent chain; the restarted
 * node serves what was committed, and importing again finishes with the right head.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, CONFORMANCE, removeDir, rpc, runCli, startNode, tempDir } from '../helpers/node.js';

const rc = join(CONFORMANCE, 'rpc-compat');
const HEAD_HASH = '0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7';

describe('SIGKILL during import', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) removeDir(d);
  });

  it('restarts with a consistent chain and finishes the import', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const genesis = `--genesis-file=${join(rc, 'genesis.json')}`;
    const args = [BIN, genesis, `--data-path=${dir}`, '--logging=DEBUG', 'blocks', 'import', `--from=${join(rc, 'chain.rlp')}`, '--skip-pow-validation-enabled'];
    // Kill as soon as the debug log reports the fifth imported block.
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const killed = new Promise<void>((res) => {
      const onData = (d: Buffer) => {
        out += d;
        if ((out.match(/Imported block/g) ?? []).length >= 5 && child.pid !== undefined && child.exitCode === null) {
          process.kill(child.pid, 'SIGKILL');
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', () => res());
    });
    await killed;

    // The restarted node serves a consistent chain: its head block and that block's state are readable.
    const node = await startNode([genesis, `--data-path=${dir}`]);
    try {
      const head = await rpc<{ number: string; hash: string; stateRoot: string }>(node.url, 'eth_getBlockByNumber', ['latest', false]);
      const n = Number(head.number);
      expect(n).toBeGreaterThanOrEqual(5);
      expect(n).toBeLessThanOrEqual(54);
      const byHash = await rpc<{ number: string }>(node.url, 'eth_getBlockByHash', [head.hash, false]);
      expect(byHash.number).toBe(head.number);
      await rpc(node.url, 'eth_getBalance', ['0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f', head.number]);
    } finally {
      await node.stop();
    }

    // Importing the same file again skips what is there and completes the chain.
    await runCli([genesis, `--data-path=${dir}`, 'blocks', 'import', `--from=${join(rc, 'chain.rlp')}`, '--skip-pow-validation-enabled']);
    const node2 = await startNode([genesis, `--data-path=${dir}`]);
    try {
      const head = await rpc<{ number: string; hash: string }>(node2.url, 'eth_getBlockByNumber', ['latest', false]);
      expect(head.number).toBe('0x36');
      expect(head.hash).toBe(HEAD_HASH);
    } finally {
      await node2.stop();
    }
  });
});
