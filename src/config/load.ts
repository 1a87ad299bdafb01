/**
 * Builds the Config from the command line, the environment, the TOML config file and the defaults
 * (in that order of precedence, as Besu), then loads the genesis and checks options that depend on
 * each other.
 */
import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { parse as parseToml } from 'smol-toml';
import { ConfigError } from './errors.js';
import { type GenesisSpec, loadGenesisFile } from './genesis.js';
import { NETWORKS } from './networks/index.js';
import {
  booleanFlagNames,
  commandLineValues,
  convertValue,
  envVarName,
  newOptionsCommand,
  normalizeBooleanFlags,
  OPTIONS,
  type OptionSpec,
  OptionValueError,
  type RawValue,
  tomlKey,
  unavailableReason,
} from './options.js';
import type { Config, NetworkName } from './types.js';

export { ConfigError } from './errors.js';

export type ValueSource = 'command line' | 'environment' | 'config file' | 'default';

/**
 * Parses node options (no subcommands) and resolves the configuration.
 * Throws `ConfigError` with a message meant for the user.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  const cmd = newOptionsCommand()
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .allowExcessArguments(false);
  try {
    cmd.parse(normalizeBooleanFlags(argv, booleanFlagNames()), { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) throw new ConfigError(err.message.replace(/^error: /, ''));
    throw err;
  }
  return resolveConfig(commandLineValues(cmd.opts()), env);
}

/** Resolves the configuration from already collected command-line values (see `commandLineValues`). */
export function resolveConfig(cli: Map<string, RawValue>, env: NodeJS.ProcessEnv): Config {
  const configFile = pick(optionNamed('--config-file'), cli, env, undefined);
  const { values: file, pluginOptions } =
    configFile.value === undefined
      ? { values: new Map<string, unknown>(), pluginOptions: new Map<string, string>() }
      : readConfigFile(configFile.value as string);

  const values: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  const refused: string[] = [];
  for (const spec of OPTIONS) {
    const { value, source, key } = pick(spec, cli, env, file);
    values[spec.field] = value;
    sources[spec.field] = source;
    const reason = source === 'default' ? undefined : unavailableReason(spec, value);
    if (reason !== undefined) refused.push(`${spec.name}${where(source, key)}: ${reason}`);
  }
  // Before anything else is read or written: an option Alder cannot honour stops the start.
  if (refused.length > 0) throw new ConfigError(refused.join('; '));

  const network = values.network as NetworkName | undefined;
  const genesisFile = values.genesisFile as string | undefined;
  if (network !== undefined && genesisFile !== undefined) {
    throw new ConfigError(
      "--network option and --genesis-file option can't be used at the same time. Use --genesis-file alone to run a custom chain.",
    );
  }
  let genesis: GenesisSpec;
  if (genesisFile !== undefined) genesis = loadGenesisFile(genesisFile);
  else if (network !== undefined) genesis = NETWORKS[network].genesis();
  else {
    throw new ConfigError(
      'No network selected: use --network=dev for a development chain or --genesis-file=<FILE> for another chain (Alder has no built-in mainnet configuration)',
    );
  }
  const preset = network === undefined ? undefined : NETWORKS[network];
  if (sources.networkId === 'default') values.networkId = preset?.networkId ?? genesis.config.chainId;
  if (sources.bootnodes === 'default') values.bootnodes = preset?.bootnodes ?? [];

  values.pluginFileOptions = pluginOptions;
  const config = { ...values, genesis } as Config;
  checkCombinations(config);
  return config;
}

function optionNamed(name: string): OptionSpec {
  const spec = OPTIONS.find((o) => o.name === name);
  if (spec === undefined) throw new Error(`no option ${name}`);
  return spec;
}

function pick(
  spec: OptionSpec,
  cli: Map<string, RawValue>,
  env: NodeJS.ProcessEnv,
  file: Map<string, unknown> | undefined,
): { value: unknown; source: ValueSource; key?: string } {
  const fromCli = cli.get(spec.name);
  if (fromCli !== undefined) return { value: convert(spec, fromCli, 'command line'), source: 'command line' };
  for (const name of [spec.name, ...(spec.aliases ?? [])]) {
    const key = envVarName(name);
    const fromEnv = env[key];
    if (fromEnv !== undefined)
      return { value: convert(spec, fromEnv, 'environment', key), source: 'environment', key };
  }
  if (file !== undefined) {
    for (const name of [spec.name, ...(spec.aliases ?? [])]) {
      const key = tomlKey(name);
      const fromFile = file.get(key);
      if (fromFile !== undefined) {
        return { value: convert(spec, fromFile as RawValue, 'config file', key), source: 'config file', key };
      }
    }
  }
  return { value: spec.default, source: 'default' };
}

/** Where a value came from, for messages: '' for the command line. */
function where(source: ValueSource, key: string | undefined): string {
  if (source === 'environment') return ` (from environment variable ${key})`;
  if (source === 'config file') return ` (from config file key '${key}')`;
  return '';
}

function convert(spec: OptionSpec, raw: RawValue, source: ValueSource, key?: string): unknown {
  try {
    return convertValue(spec, raw, source === 'config file');
  } catch (err) {
    if (!(err instanceof OptionValueError)) throw err;
    throw new ConfigError(`Invalid value for option '${spec.name}'${where(source, key)}: ${err.message}`);
  }
}

/**
 * Reads the TOML file into key → value; table headings are ignored, as in Besu. Keys
 * `plugin-<name>-<option>` are plugin options (as `--plugin-<name>-<option>` on the command line): they
 * come back apart, as text, for the plugins to claim once loaded.
 */
function readConfigFile(path: string): {
  values: Map<string, unknown>;
  pluginOptions: Map<string, string>;
} {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new ConfigError(`Unable to read TOML configuration, file not found: ${path}`);
    throw new ConfigError(`Unable to read TOML configuration file ${path}: ${(err as Error).message}`);
  }
  if (text.trim() === '') throw new ConfigError(`Empty TOML configuration file: ${path}`);
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text, { integersAsBigInt: 'asNeeded' }) as Record<string, unknown>;
  } catch (err) {
    const first = String((err as Error).message).split('\n')[0];
    throw new ConfigError(`Invalid TOML configuration in ${path}: ${first}`);
  }
  const known = new Set(OPTIONS.flatMap((o) => [o.name, ...(o.aliases ?? [])]).map(tomlKey));
  known.delete('config-file');
  const values = new Map<string, unknown>();
  const pluginOptions = new Map<string, string>();
  const unknown: string[] = [];
  const walk = (table: Record<string, unknown>): void => {
    for (const [key, value] of Object.entries(table)) {
      const plugin = PLUGIN_OPTION_KEY.exec(key);
      if (!known.has(key) && isTable(value)) walk(value);
      else if (!known.has(key) && plugin && isPluginOptionValue(value))
        pluginOptions.set(plugin[1] as string, String(value));
      else if (!known.has(key)) unknown.push(key);
      else values.set(key, value);
    }
  };
  walk(doc);
  if (unknown.length > 0) {
    throw new ConfigError(
      `Unknown option${unknown.length > 1 ? 's' : ''} in TOML configuration file ${path}: ${unknown.join(', ')}`,
    );
  }
  return { values, pluginOptions };
}

/** `plugin-<name>-<option>`: a plugin's option in the TOML file. */
const PLUGIN_OPTION_KEY = /^plugin-([a-z0-9][a-z0-9-]*-[a-z0-9][a-z0-9-]*)$/;

/** Plugin options are strings, integers or booleans. */
function isPluginOptionValue(v: unknown): v is string | number | bigint | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Rules that involve more than one option. */
function checkCombinations(c: Config): void {
  if (
    c.rpcHttpAuthenticationEnabled &&
    !c.rpcHttpAuthenticationCredentialsFile &&
    !c.rpcHttpAuthenticationJwtPublicKeyFile
  ) {
    throw new ConfigError(
      'Unable to authenticate JSON-RPC HTTP endpoint without a supplied credentials file or authentication public key file',
    );
  }
  if (
    c.rpcWsAuthenticationEnabled &&
    !c.rpcWsAuthenticationCredentialsFile &&
    !c.rpcWsAuthenticationJwtPublicKeyFile
  ) {
    throw new ConfigError(
      'Unable to authenticate JSON-RPC WebSocket endpoint without a supplied credentials file or authentication public key file',
    );
  }
  if (c.minerEnabled && c.minerCoinbase === undefined && c.genesis.config.consensus === 'ethash') {
    throw new ConfigError(
      'Unable to mine without a valid coinbase. Either disable mining (remove --miner-enabled) or specify the beneficiary of mining (via --miner-coinbase <Address>)',
    );
  }
  if (c.metricsEnabled && c.metricsPushEnabled) {
    throw new ConfigError(
      "--metrics-enabled option and --metrics-push-enabled option can't be used at the same time. Please refer to CLI reference for more details about this constraint.",
    );
  }
  if (c.privacyMultiTenancyEnabled && !c.rpcHttpAuthenticationEnabled && !c.rpcWsAuthenticationEnabled) {
    throw new ConfigError(
      'Privacy multi-tenancy requires either http authentication to be enabled or WebSocket authentication to be enabled',
    );
  }
}
