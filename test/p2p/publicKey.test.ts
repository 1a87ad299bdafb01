/** `alder public-key export` and `export-address`: the node key's enode id and address, to stdout or a file. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testKey } from '../clique/helpers.js';
import { removeDir, runCli, tempDir } from '../helpers/node.js';

const dir = tempDir('alder-pubkey-');
afterAll(() => removeDir(dir));
const KEY = testKey('pubkey');
writeFileSync(join(dir, 'key'), `0x${Buffer.from(KEY.key).toString('hex')}`);

describe('public-key subcommands', () => {
  it('prints the public key and the address of the node key', async () => {
    const { stdout } = await runCli(['--network=dev', `--data-path=${dir}`, 'public-key', 'export']);
    expect(stdout.trim()).toMatch(/^0x[0-9a-f]{128}$/);
    const addr = await runCli(['--network=dev', `--data-path=${dir}`, 'public-key', 'export-address']);
    expect(addr.stdout.trim()).toBe(KEY.address.toLowerCase());
  });

  it('writes to --to and reads --node-private-key-file', async () => {
    const other = join(dir, 'other-key');
    writeFileSync(other, `0x${Buffer.from(testKey('other').key).toString('hex')}`);
    const out = join(dir, 'address.txt');
    await runCli([
      '--network=dev',
      `--data-path=${dir}`,
      `--node-private-key-file=${other}`,
      'public-key',
      'export-address',
      `--to=${out}`,
    ]);
    expect(readFileSync(out, 'utf8')).toBe(testKey('other').address.toLowerCase());
  });
});
