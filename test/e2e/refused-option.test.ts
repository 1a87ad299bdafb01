/**
 * `bin/alder` with an option Alder cannot honour yet stops at start: a non-zero exit, one line that
 * names the option and the reason, and nothing written to the data directory.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliStatus, tempDir } from '../helpers/node.js';

describe('bin/alder with an option that is not available yet', () => {
  it('exits with 2 and the reason, before creating the data directory', async () => {
    const dataPath = join(tempDir(), 'data');
    const r = await runCliStatus([
      '--network=dev',
      `--data-path=${dataPath}`,
      '--rpc-http-enabled',
      '--privacy-enabled',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('--privacy-enabled: private transactions are not available yet\n');
    expect(existsSync(dataPath)).toBe(false);
  });

  it('refuses it from a config file, for a subcommand too', async () => {
    const dir = tempDir();
    const dataPath = join(dir, 'data');
    const file = join(dir, 'alder.toml');
    writeFileSync(file, `network="dev"\ndata-path="${dataPath}"\nprivacy-enabled=true\n`);
    const r = await runCliStatus([
      `--config-file=${file}`,
      'blocks',
      'export',
      `--to=${join(dir, 'out.rlp')}`,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "--privacy-enabled (from config file key 'privacy-enabled'): private transactions are not available yet\n",
    );
    expect(existsSync(dataPath)).toBe(false);
    expect(readdirSync(dir)).toEqual(['alder.toml']);
  });
});
