/**
 * `alder dev-network` as a user runs it: one command brings up validators on 127.0.0.1 that produce
 * blocks, prints their endpoints, and Ctrl-C (SIGINT) stops every node it started.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, removeDir, rpc, tempDir } from '../helpers/node.js';

describe('alder dev-network', () => {
  const dir = tempDir('alder-devnet-');
  afterAll(() => removeDir(dir));

  it('starts a one-validator QBFT network that produces blocks and stops it all on SIGINT', async () => {
    const child = spawn(process.execPath, [BIN, 'dev-network', '--validators=1', `--data-path=${dir}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 30_000;
      let url: string | undefined;
      while (!url) {
        url = /JSON-RPC (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
        if (Date.now() > deadline) throw new Error(`no endpoint printed:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toMatch(/validator 0x[0-9a-f]{40}/);
      expect(out).toMatch(/enode enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+/);
      const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8'));
      expect(genesis.config.qbft.blockperiodseconds).toBe(1);
      for (;;) {
        const n = await rpc<string>(url, 'eth_blockNumber').catch(() => '0x0');
        if (BigInt(n) >= 2n) break;
        if (Date.now() > deadline) throw new Error(`no blocks:\n${out}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const validators = await rpc<string[]>(url, 'qbft_getValidatorsByBlockNumber', ['latest']);
      expect(out).toContain(`validator ${validators[0]}`);
      process.kill(child.pid as number, 'SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('Every node stopped.');
      await expect(rpc(url, 'eth_blockNumber')).rejects.toThrow();
      expect(existsSync(join(dir, 'node-0', 'key'))).toBe(true);
    } finally {
      if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
    }
  }, 60_000);
});
