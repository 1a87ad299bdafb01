/**
 * Bad input files, a second process on one data directory, and a full disk, each against the real
 * CLI: a clear message naming the file and the problem, a non-zero exit, and nothing written (or,
 * for a full disk, nothing committed lost).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RPC_COMPAT_CHAIN as RPC_COMPAT } from '../helpers/conformance.js';
import { BIN, rpc, runCliStatus, startNode, tempDir } from '../helpers/node.js';

const work = tempDir('alder-badfiles-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(work, name);
  writeFileSync(path, content);
  return path;
}

/** A data directory that does not exist yet: afterwards it must still be absent or empty. */
function freshDataDir(): string {
  return join(work, `data-${Math.random().toString(36).slice(2)}`);
}

function untouched(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

describe.concurrent('bad input files are refused with nothing written', () => {
  const cases: Array<{ name: string; args: (dir: string) => string[]; message: RegExp }> = [
    {
      name: 'genesis file that is not JSON',
      args: () => [`--genesis-file=${file('g1.json', '{"config":')}`],
      message: /g1\.json is not valid JSON/,
    },
    {
      name: 'genesis file without a config',
      args: () => [`--genesis-file=${file('g2.json', '{"alloc":{}}')}`],
      message: /g2\.json/,
    },
    {
      name: 'genesis file that does not exist',
      args: () => [`--genesis-file=${join(work, 'missing-genesis.json')}`],
      message: /missing-genesis\.json/,
    },
    {
      name: 'config file that is not TOML',
      args: () => ['--network=dev', `--config-file=${file('c1.toml', 'rpc-http-enabled = [')}`],
      message: /Invalid TOML configuration in .*c1\.toml/,
    },
    {
      name: 'config file with an unknown option',
      args: () => ['--network=dev', `--config-file=${file('c2.toml', 'no-such-option = 1\n')}`],
      message: /no-such-option/,
    },
    {
      name: 'RLP file of garbage to blocks import',
      args: () => [
        '--network=dev',
        'blocks',
        'import',
        `--from=${file('b1.rlp', Buffer.from('hello world'))}`,
      ],
      message: /b1\.rlp: not block RLP at byte 0/,
    },
    {
      name: 'truncated RLP file to blocks import',
      args: () => [
        '--network=dev',
        'blocks',
        'import',
        `--from=${file('b2.rlp', Buffer.from([0xf9, 0x02, 0x00, 0xc0]))}`,
      ],
      message: /b2\.rlp: truncated block data at byte 0/,
    },
    {
      name: 'RLP file whose items are not blocks',
      args: () => [
        '--network=dev',
        'blocks',
        'import',
        `--from=${file('b3.rlp', Buffer.from([0xc2, 0x01, 0x02]))}`,
      ],
      message: /b3\.rlp: the item at byte 0 is not a block/,
    },
    {
      name: 'node key file that is not a key',
      args: () => ['--network=dev', `--node-private-key-file=${file('k1', 'not a key\n')}`],
      message: /Node key file .*k1 does not hold a 32-byte hex private key/,
    },
    {
      name: 'node key file with a key outside the curve order',
      args: () => ['--network=dev', `--node-private-key-file=${file('k2', `0x${'ff'.repeat(32)}`)}`],
      message: /Node key file .*k2 holds an invalid secp256k1 private key/,
    },
    {
      name: 'JWT public key file that is not PEM',
      args: () => [
        '--network=dev',
        '--rpc-http-enabled',
        '--rpc-http-port=0',
        '--rpc-http-authentication-enabled',
        `--rpc-http-authentication-jwt-public-key-file=${file('p1.pem', 'not a pem\n')}`,
      ],
      message: /public key file format is invalid: .*p1\.pem/,
    },
    {
      name: 'credentials file that is not TOML',
      args: () => [
        '--network=dev',
        '--rpc-http-enabled',
        '--rpc-http-port=0',
        '--rpc-http-authentication-enabled',
        `--rpc-http-authentication-credentials-file=${file('u1.toml', '[Users.alice\n')}`,
      ],
      message: /credentials file: Invalid TOML configuration in .*u1\.toml/,
    },
    {
      name: 'credentials file that does not exist',
      args: () => [
        '--network=dev',
        '--rpc-ws-enabled',
        '--rpc-ws-port=0',
        '--rpc-ws-authentication-enabled',
        `--rpc-ws-authentication-credentials-file=${join(work, 'missing.toml')}`,
      ],
      message: /credential file '.*missing\.toml' does not exist/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const dir = freshDataDir();
      const r = await runCliStatus([`--data-path=${dir}`, ...c.args(dir)]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(c.message);
      expect(untouched(dir)).toBe(true);
    });
  }
});

describe('one writer per data directory', () => {
  it('refuses a second process, and a lock left by a killed one does not block the restart', async () => {
    const dir = freshDataDir();
    const first = await startNode(['--network=dev', `--data-path=${dir}`]);
    try {
      const second = await runCliStatus([
        '--network=dev',
        `--data-path=${dir}`,
        'blocks',
        'import',
        `--from=${RPC_COMPAT.blocks}`,
      ]);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        new RegExp(
          `Data directory .*database is in use by another Alder process \\(pid ${first.child.pid}\\)`,
        ),
      );
      const third = await runCliStatus([
        '--network=dev',
        `--data-path=${dir}`,
        '--rpc-http-enabled',
        '--rpc-http-port=0',
      ]);
      expect(third.code).toBe(1);
      expect(third.stderr).toMatch(/is in use by another Alder process/);
    } finally {
      process.kill(first.child.pid as number, 'SIGKILL');
      await new Promise((r) => first.child.once('exit', r));
    }
    expect(existsSync(join(dir, 'database', 'alder.lock'))).toBe(true);
    const again = await startNode(['--network=dev', `--data-path=${dir}`]);
    expect(await rpc(again.url, 'eth_blockNumber')).toBe('0x0');
    await again.stop();
    // A clean stop releases the lock.
    expect(existsSync(join(dir, 'database', 'alder.lock'))).toBe(false);
  });
});

/** A small tmpfs when the machine lets us mount one (root in a container usually can). */
function mountTmpfs(path: string, size: string): boolean {
  mkdirSync(path, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path]);
  return r.status === 0;
}

function probeMount(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = join(work, 'mount-probe');
  if (!mountTmpfs(probe, '1m')) return false;
  spawnSync('umount', [probe]);
  return true;
}
const canMount = probeMount();

/** After a failed import: the node starts on what was committed, every block of it whole; then the import completes. */
async function committedBlocksIntact(dataDir: string): Promise<void> {
  const node = await startNode([`--genesis-file=${RPC_COMPAT.genesis}`, `--data-path=${dataDir}`]);
  try {
    const head = await rpc<{ number: string; hash: string }>(node.url, 'eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    const byHash = await rpc<{ number: string }>(node.url, 'eth_getBlockByHash', [head.hash, false]);
    expect(byHash.number).toBe(head.number);
    for (let n = 1; n <= Number(head.number); n++) {
      const block = await rpc<{ hash: string; transactions: string[] }>(node.url, 'eth_getBlockByNumber', [
        `0x${n.toString(16)}`,
        false,
      ]);
      const receipts = await rpc<unknown[]>(node.url, 'eth_getBlockReceipts', [block.hash]);
      expect(receipts.length).toBe(block.transactions.length);
    }
  } finally {
    await node.stop();
  }
  const rest = await runCliStatus([
    `--genesis-file=${RPC_COMPAT.genesis}`,
    `--data-path=${dataDir}`,
    'blocks',
    'import',
    `--from=${RPC_COMPAT.blocks}`,
    '--skip-pow-validation-enabled',
  ]);
  expect(rest.code).toBe(0);
  expect(rest.stdout + rest.stderr).toMatch(
    /head is block 54 0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7/,
  );
}

describe.skipIf(!canMount)('a full disk (a 6 MB tmpfs)', () => {
  it('stops the import with a clear error and keeps every committed block', async () => {
    const mnt = join(work, 'full');
    expect(mountTmpfs(mnt, '6m')).toBe(true);
    const copy = join(work, 'full-copy');
    try {
      const args = [
        `--genesis-file=${RPC_COMPAT.genesis}`,
        `--data-path=${join(mnt, 'd')}`,
        'blocks',
        'import',
        `--from=${RPC_COMPAT.blocks}`,
        '--skip-pow-validation-enabled',
      ];
      const r = await runCliStatus(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/Cannot write to the database in .*: no space left on the device/);
      cpSync(join(mnt, 'd'), copy, { recursive: true });
    } finally {
      spawnSync('umount', [mnt]);
    }
    await committedBlocksIntact(copy);
  }, 120_000);
});

/**
 * Storage that refuses to grow, on any machine: a file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored
 * so the write fails instead of killing the process) stops LMDB's data file at 4 MiB mid-import.
 */
describe('storage that cannot grow (a 4 MiB file-size limit)', () => {
  it('stops the import with a clear error naming the database, and keeps every committed block', async () => {
    const dir = freshDataDir();
    const r = spawnSync(
      'bash',
      [
        '-c',
        `trap '' XFSZ; ulimit -f 4096; exec "$0" "$@"`,
        process.execPath,
        BIN,
        `--genesis-file=${RPC_COMPAT.genesis}`,
        `--data-path=${dir}`,
        'blocks',
        'import',
        `--from=${RPC_COMPAT.blocks}`,
        '--skip-pow-validation-enabled',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/Cannot write to the database in .*database: /);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    await committedBlocksIntact(dir);
  }, 120_000);
});
