/**
 * `alder rlp encode|decode` through the real CLI against Besu's own vectors: validator addresses to
 * IBFT 2.0 and QBFT genesis extraData and back, from files or standard input, and Besu's errors.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, removeDir, runCli, runCliStatus, tempDir } from '../helpers/node.js';

const ADDRESSES = '["be068f726a13c8d46c44be6ce9d275600e1735a4", "5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193"]';
const IBFT =
  '0xf853a00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193808400000000c0';
const QBFT =
  '0xf84fa00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193c080c0';
const LIST = '[0xbe068f726a13c8d46c44be6ce9d275600e1735a4, 0x5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193]';

describe('alder rlp', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('alder-rlp-');
  });
  afterAll(() => removeDir(dir));

  it('encodes validator addresses into IBFT 2.0 and QBFT extraData, from stdin or a file', async () => {
    const stdin = execFileSync(process.execPath, [BIN, 'rlp', 'encode'], {
      input: ADDRESSES,
      encoding: 'utf8',
    });
    expect(stdin).toBe(`${IBFT}\n`);
    const from = join(dir, 'validators.json');
    writeFileSync(
      from,
      `[\n  "be068f726a13c8d46c44be6ce9d275600e1735a4",\n  "5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193"\n]\n`,
    );
    const to = join(dir, 'extra.txt');
    const out = await runCli(['rlp', 'encode', `--from=${from}`, `--to=${to}`, '--type=QBFT_EXTRA_DATA']);
    expect(out.stdout).toBe('');
    expect(readFileSync(to, 'utf8')).toBe(QBFT);
  });

  it('decodes extraData back to its validators', async () => {
    const stdin = execFileSync(process.execPath, [BIN, 'rlp', 'decode'], {
      input: `${IBFT}\n`,
      encoding: 'utf8',
    });
    expect(stdin).toBe(`${LIST}\n`);
    const from = join(dir, 'qbft.txt');
    writeFileSync(from, `${QBFT}\nignored second line\n`);
    expect((await runCli(['rlp', 'decode', `--from=${from}`, '--type=QBFT_EXTRA_DATA'])).stdout).toBe(
      `${LIST}\n`,
    );
  });

  it("answers Besu's errors", async () => {
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '');
    const a = await runCliStatus(['rlp', 'encode', `--from=${empty}`]);
    expect(a.code).not.toBe(0);
    expect(a.stderr).toContain('An error occurred while trying to read the JSON data.');
    const obj = join(dir, 'obj.json');
    writeFileSync(obj, '{"a": 1}');
    expect((await runCliStatus(['rlp', 'encode', `--from=${obj}`])).stderr).toContain(
      'Unable to map the JSON data with selected type. Please check JSON input format.',
    );
    expect((await runCliStatus(['rlp', 'decode', `--from=${join(dir, 'missing')}`])).stderr).toContain(
      'Unable to read input file.',
    );
    const qbftAsIbft = join(dir, 'q.txt');
    writeFileSync(qbftAsIbft, QBFT);
    expect((await runCliStatus(['rlp', 'decode', `--from=${qbftAsIbft}`])).stderr).toContain(
      'Unable to load the input data. Please check input format.',
    );
    expect((await runCliStatus(['rlp', 'encode', '--type=RLP'])).stderr).toContain(
      'IBFT_EXTRA_DATA, QBFT_EXTRA_DATA',
    );
  });
});
