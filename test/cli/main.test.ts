import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../src/cli/main.js';
import type { Config } from '../../src/config/types.js';
import type { ExportOptions, ImportOptions } from '../../src/node.js';

interface Run {
  code: number | undefined;
  stdout: string;
  stderr: string;
  calls: Array<[string, ...unknown[]]>;
}

async function run(argv: string[], overrides: Partial<CliIo> = {}, tty = false): Promise<Run> {
  const r: Run = { code: undefined, stdout: '', stderr: '', calls: [] };
  await main(argv, {
    stdout: { write: (s: string) => (r.stdout += s) },
    stderr: { write: (s: string) => (r.stderr += s), isTTY: tty },
    env: {},
    exit: (code) => {
      r.code = code;
    },
    waitForShutdown: async () => {
      r.calls.push(['waitForShutdown']);
      return 'SIGTERM';
    },
    startNode: async (config: Config) => {
      r.calls.push(['startNode', config]);
      return { stop: async () => void r.calls.push(['stop']) };
    },
    importBlocks: async (config: Config, files: string[], opts: ImportOptions) => {
      r.calls.push(['importBlocks', config, files, opts.skipPowValidation]);
      for (let i = 1; i <= 3; i++) opts.onProgress?.(i, 3, BigInt(i));
      return { imported: 3, skipped: 1, head: { number: 3n, hash: '0xabc' } };
    },
    exportBlocks: async (config: Config, opts: ExportOptions) => {
      r.calls.push(['exportBlocks', config, opts]);
      return 2;
    },
    ...overrides,
  });
  return r;
}

const dir = mkdtempSync(join(tmpdir(), 'alder-cli-'));
const blocksFile = join(dir, 'chain.rlp');
writeFileSync(blocksFile, new Uint8Array([0xc0]));

describe('alder (run the node)', () => {
  it('starts the node with the loaded config, waits for a signal, then stops it', async () => {
    const r = await run(['--network=dev', '--rpc-http-enabled', '--rpc-http-port=9545']);
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => c[0])).toEqual(['startNode', 'waitForShutdown', 'stop']);
    const config = r.calls[0]?.[1] as Config;
    expect(config.rpcHttpEnabled).toBe(true);
    expect(config.rpcHttpPort).toBe(9545);
    expect(config.networkId).toBe(2018n);
  });

  it('prints help and the version, exit 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--rpc-http-port <PORT>');
    expect(help.stdout).toContain('(default: 8545)');
    expect(help.stdout).toContain('blocks');
    const version = await run(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^alder\/v\d+\.\d+\.\d+/);
  });

  it('an unknown option is an error with a clear message and no stack trace', async () => {
    const r = await run(['--network=dev', '--rpc-http-prot=1']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: unknown option '--rpc-http-prot=1'/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.calls).toEqual([]);
  });

  it("a bad API group aborts with Besu's message, on one line", async () => {
    const r = await run(['--network=dev', '--rpc-http-api=ETH,NO-PE']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("Invalid value for option '--rpc-http-api': invalid entries found [NO-PE]\n");
  });

  it('errors from the node print one line, or the stack with --logging=DEBUG', async () => {
    const failing = { startNode: async (): Promise<never> => Promise.reject(new Error('port 8545 in use')) };
    const plain = await run(['--network=dev'], failing);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe('port 8545 in use\n');
    const debug = await run(['--network=dev', '--logging=DEBUG'], failing);
    expect(debug.stderr).toMatch(/^Error: port 8545 in use\n\s+at /);
  });
});

describe('alder blocks', () => {
  it('import calls importBlocks with every file and prints a summary', async () => {
    const r = await run([
      '--network=dev',
      'blocks',
      'import',
      `--from=${blocksFile}`,
      '--skip-pow-validation-enabled',
    ]);
    expect(r.code).toBe(0);
    const [name, config, files, skipPow] = r.calls[0] ?? [];
    expect(name).toBe('importBlocks');
    expect((config as Config).network).toBe('dev');
    expect(files).toEqual([blocksFile]);
    expect(skipPow).toBe(true);
    expect(r.stdout).toBe('Imported 3 blocks (1 already known); head is block 3 0xabc\n');
    expect(r.stderr).toBe('');
  });

  it('import takes repeated --from, positional files, and global options after the subcommand', async () => {
    const r = await run(['blocks', 'import', `--from=${blocksFile}`, blocksFile, '--network=dev']);
    expect(r.code).toBe(0);
    expect(r.calls[0]?.[2]).toEqual([blocksFile, blocksFile]);
    expect(r.calls[0]?.[3]).toBe(false);
  });

  it('import shows progress on a terminal', async () => {
    const r = await run(['--network=dev', 'blocks', 'import', `--from=${blocksFile}`], {}, true);
    expect(r.stderr).toMatch(
      /\r\[#{30}\] Importing blocks: 3\/3 blocks \(100%\), [0-9.]+ blocks\/s, \S+ elapsed \(block 3\)/,
    );
    expect(r.stderr.endsWith('\u001b[K\n')).toBe(true);
    expect(r.stderr.endsWith('\n')).toBe(true);
  });

  it('import errors: no file, missing file, failure', async () => {
    expect((await run(['--network=dev', 'blocks', 'import'])).stderr).toBe(
      'No files specified to import. Use --from=<FILE>.\n',
    );
    const missing = await run(['--network=dev', 'blocks', 'import', '--from=/nonexistent.rlp']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('Block file not found: /nonexistent.rlp\n');
    const failing = await run(['--network=dev', 'blocks', 'import', `--from=${blocksFile}`], {
      importBlocks: async () => Promise.reject(new Error('Invalid block 7: state root mismatch')),
    });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toBe('Invalid block 7: state root mismatch\n');
  });

  it("export passes Besu's --start-block, --end-block and --to", async () => {
    const r = await run([
      '--network=dev',
      'blocks',
      'export',
      '--start-block=2',
      '--end-block=5',
      `--to=${dir}/out.rlp`,
    ]);
    expect(r.code).toBe(0);
    expect(r.calls[0]?.[2]).toMatchObject({ from: 2n, to: 5n, file: `${dir}/out.rlp` });
    expect(r.stdout).toBe(`Exported 2 blocks to ${dir}/out.rlp\n`);
    const single = await run(['--network=dev', 'blocks', 'export', `--to=${dir}/one.rlp`]);
    expect(single.calls[0]?.[2]).toMatchObject({ from: 0n, to: undefined, file: `${dir}/one.rlp` });
    const bad = await run([
      '--network=dev',
      'blocks',
      'export',
      '--start-block=5',
      '--end-block=5',
      `--to=${dir}/x.rlp`,
    ]);
    expect(bad.stderr).toBe('--end-block (5) must be greater than --start-block (5)\n');
    const noTo = await run(['--network=dev', 'blocks', 'export']);
    expect(noTo.code).not.toBe(0);
    expect(noTo.stderr).toMatch(/required option '--to <FILE>' not specified/);
  });
});

describe('alder password hash', () => {
  it('prints a $2a$10$ bcrypt hash of the password', async () => {
    const r = await run(['password', 'hash', '--password=s3cr3t!']);
    expect(r.code).toBe(0);
    const hash = r.stdout.trim();
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(hash).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.compareSync('s3cr3t!', hash)).toBe(true);
    expect(bcrypt.compareSync('other', hash)).toBe(false);
  });

  it('needs --password', async () => {
    const r = await run(['password', 'hash']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/required option '--password <PASSWORD>' not specified/);
  });
});
