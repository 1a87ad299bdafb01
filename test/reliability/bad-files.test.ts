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
import { rpc, runCliStatus, startNode, tempDir } from '../helpers/node.js';

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

const canMount = process.platform === 'linux' && process.getuid?.() === 0;

describe.skipIf(!canMount)('a full disk', () => {
  it('stops the import with a clear error and keeps every committed block', async () => {
    const mnt = join(work, 'full');
    if (!mountTmpfs(mnt, '6m')) return;
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
    // Space is back: the node starts on what was committed and the import completes.
    const node = await startNode([`--genesis-file=${RPC_COMPAT.genesis}`, `--data-path=${copy}`]);
    const head = await rpc<{ number: string; hash: string }>(node.url, 'eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    const byHash = await rpc<{ number: string }>(node.url, 'eth_getBlockByHash', [head.hash, false]);
    expect(byHash.number).toBe(head.number);
    const receipts = await rpc<unknown[]>(node.url, 'eth_getBlockReceipts', [head.number]);
    expect(Array.isArray(receipts)).toBe(true);
    await node.stop();
  }, 120_000);
});
