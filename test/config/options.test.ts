/**
 * Every option does what the README says or is refused at start: each entry of the option table is
 * either read by the node (its Config field read as `config.<field>` outside src/config/) or declared
 * `unavailable` — never both, never neither — and the refusal is what the declaration says.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { envVarName, OPTIONS, type OptionSpec, unavailableReason } from '../../src/config/options.js';

const SRC = resolve(import.meta.dirname, '../../src');
const DEV = ['--network=dev'];

/** Options the configuration loader itself acts on: which file to read, which chain to run. */
const READ_BY_THE_LOADER: Record<string, string> = {
  '--config-file': "optionNamed('--config-file')",
  '--network': 'values.network',
  '--genesis-file': 'values.genesisFile',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const consumers = sourceFiles(SRC)
  .filter((f) => !relative(SRC, f).startsWith('config/'))
  .map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }));

function readers(spec: OptionSpec): string[] {
  const access = new RegExp(`\\bconfig\\??\\.${spec.field}\\b`);
  return consumers.filter((c) => access.test(c.text)).map((c) => c.file);
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

/** A command-line value of the option that is neither its default nor one it accepts anyway. */
function askingValue(spec: OptionSpec): string {
  const accepted = (text: string): boolean => {
    try {
      return (
        unavailableReason(spec, loadConfig([...DEV, `${spec.name}=${text}`], {})[spec.field]) === undefined
      );
    } catch {
      return false;
    }
  };
  const candidates: string[] = [];
  if (spec.type === 'boolean') candidates.push(String(!spec.default));
  if (spec.type === 'int' || spec.type === 'bigint') candidates.push(String(Number(spec.default ?? 0) + 1));
  if (spec.type === 'enum') candidates.push(...(spec.choices ?? []));
  if (spec.type === 'string' || spec.type === 'path') candidates.push('/tmp/elsewhere');
  if (spec.type === 'list') candidates.push('enode://a@127.0.0.1:30303');
  for (const text of candidates) {
    if (!accepted(text)) return text;
  }
  throw new Error(`no refused value found for ${spec.name}`);
}

describe('the option table', () => {
  it('has no option that is neither read nor refused, and none that is both', () => {
    const problems: string[] = [];
    for (const spec of OPTIONS) {
      const read = readers(spec);
      const byLoader = READ_BY_THE_LOADER[spec.name];
      if (spec.unavailable !== undefined && read.length > 0) {
        problems.push(
          `${spec.name} is read (${read.join(', ')}) yet declared unavailable: delete the declaration`,
        );
      }
      if (spec.unavailable === undefined && read.length === 0 && byLoader === undefined) {
        problems.push(`${spec.name} is read nowhere: honour it, or declare it unavailable`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('lists options read by the loader that the loader does read', () => {
    const loader = readFileSync(join(SRC, 'config/load.ts'), 'utf8');
    for (const [name, use] of Object.entries(READ_BY_THE_LOADER)) {
      expect(OPTIONS.some((o) => o.name === name)).toBe(true);
      expect(loader, name).toContain(use);
    }
  });

  it('gives every unavailable option a reason said in the README and --help', () => {
    for (const spec of OPTIONS.filter((o) => o.unavailable !== undefined)) {
      expect(spec.unavailable?.reason, spec.name).toMatch(/not available yet/);
    }
  });
});

describe('refusal at start', () => {
  const refusable = OPTIONS.filter((o) => o.unavailable !== undefined && o.unavailable.alsoAccepts !== 'any');

  it.each(refusable.map((o) => [o.name, o] as const))(
    '%s: refused when it asks for something absent',
    (_, spec) => {
      const value = askingValue(spec);
      expect(errorOf(() => loadConfig([...DEV, `${spec.name}=${value}`], {}))).toBe(
        `${spec.name}: ${spec.unavailable?.reason}`,
      );
    },
  );

  it('accepts the default given explicitly, and values that only turn off what is absent', () => {
    expect(loadConfig([...DEV, '--engine-rpc-enabled=false', '--metrics-port=9545'], {}).metricsPort).toBe(
      9545,
    );
    expect(loadConfig([...DEV, '--p2p-enabled=false', '--discovery-enabled=false'], {}).p2pEnabled).toBe(
      false,
    );
    expect(loadConfig([...DEV, '--p2p-enabled', '--discovery-enabled'], {}).discoveryEnabled).toBe(true);
    expect(loadConfig([...DEV, '--nat-method=none', '--max-peers=0', '--bootnodes='], {}).natMethod).toBe(
      'NONE',
    );
    expect(loadConfig([...DEV, '--sync-mode=full', '--tx-pool=layered'], {}).txPool).toBe('LAYERED');
    expect(
      loadConfig([...DEV, '--auto-log-bloom-caching-enabled=false'], {}).autoLogBloomCachingEnabled,
    ).toBe(false);
  });

  it('says where a refused value came from, and names every refused option at once', () => {
    expect(errorOf(() => loadConfig(DEV, { ALDER_SYNC_MODE: 'FAST' }))).toBe(
      '--sync-mode (from environment variable ALDER_SYNC_MODE): synchronization modes other than FULL are not available yet',
    );
    const dir = mkdtempSync(join(tmpdir(), 'alder-options-'));
    const file = join(dir, 'config.toml');
    writeFileSync(file, 'privacy-enabled=true\n');
    expect(errorOf(() => loadConfig([...DEV, `--config-file=${file}`], {}))).toBe(
      "--privacy-enabled (from config file key 'privacy-enabled'): private transactions are not available yet",
    );
    expect(
      errorOf(() =>
        loadConfig([...DEV, '--sync-mode=FAST', '--privacy-enabled'], {
          [envVarName('--revert-reason-enabled')]: 'true',
        }),
      ),
    ).toBe(
      '--sync-mode: synchronization modes other than FULL are not available yet; ' +
        '--revert-reason-enabled (from environment variable ALDER_REVERT_REASON_ENABLED): revert reasons in transaction receipts are not available yet; ' +
        '--privacy-enabled: private transactions are not available yet',
    );
  });

  it('is checked before the genesis is read', () => {
    expect(errorOf(() => loadConfig(['--genesis-file=/nonexistent.json', '--privacy-enabled'], {}))).toBe(
      '--privacy-enabled: private transactions are not available yet',
    );
  });
});
