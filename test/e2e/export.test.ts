/** `blocks export` writes what `blocks import` reads: a round trip reproduces the same chain. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFORMANCE, removeDir, runCli, runCliStatus, tempDir } from '../helpers/node.js';

const rc = join(CONFORMANCE, 'rpc-compat');
const genesis = `--genesis-file=${join(rc, 'genesis.json')}`;

describe('blocks export and import', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) removeDir(d);
  });

  it('exports blocks 1..54 byte for byte as they were imported', async () => {
    const a = tempDir();
    dirs.push(a);
    await runCli([
      genesis,
      `--data-path=${a}`,
      'blocks',
      'import',
      `--from=${join(rc, 'chain.rlp')}`,
      '--skip-pow-validation-enabled',
    ]);
    const out = join(a, 'out.rlp');
    await runCli([
      genesis,
      `--data-path=${a}`,
      'blocks',
      'export',
      '--start-block=1',
      '--end-block=55',
      `--to=${out}`,
    ]);
    expect(Buffer.compare(readFileSync(out), readFileSync(join(rc, 'chain.rlp')))).toBe(0);
  });

  it('stops at the first invalid block and keeps the ones before it', async () => {
    const a = tempDir();
    dirs.push(a);
    // Corrupt one byte inside block 10's header state root: the block decodes but fails validation.
    const raw = Buffer.from(readFileSync(join(rc, 'chain.rlp')));
    const bad = join(a, 'bad.rlp');
    const good = tempDir();
    dirs.push(good);
    await runCli([
      genesis,
      `--data-path=${good}`,
      'blocks',
      'import',
      `--from=${join(rc, 'chain.rlp')}`,
      '--skip-pow-validation-enabled',
    ]);
    const b9 = join(good, 'b9.rlp');
    await runCli([
      genesis,
      `--data-path=${good}`,
      'blocks',
      'export',
      '--start-block=1',
      '--end-block=10',
      `--to=${b9}`,
    ]);
    const offset = readFileSync(b9).length; // block 10 starts here
    // The state root sits after the 3-byte list header, parentHash (33), ommersHash (33), coinbase (21).
    const headerStart = offset + (raw[offset] >= 0xf8 ? 1 + (raw[offset] - 0xf7) : 1);
    const headerBody = headerStart + (raw[headerStart] >= 0xf8 ? 1 + (raw[headerStart] - 0xf7) : 1);
    raw[headerBody + 33 + 33 + 21 + 1 + 5] ^= 0xff;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(bad, raw);
    const r = await runCliStatus([
      genesis,
      `--data-path=${a}`,
      'blocks',
      'import',
      `--from=${bad}`,
      '--skip-pow-validation-enabled',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/block 10/i);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
