/**
 * The `alder` command. Global (node) options come first, then an optional subcommand, as in Besu:
 *
 *   alder [options]                                  run the node until SIGINT/SIGTERM
 *   alder [options] blocks import --from=FILE...     import RLP-encoded blocks
 *   alder [options] blocks export --to=FILE [--start-block=N] [--end-block=M]
 *   alder [options] operator generate-log-bloom-cache [--start-block=N] [--end-block=M]
 *   alder dev-network [--consensus=qbft|ibft2] [--validators=4] [--data-path=DIR]
 *                                                    a local BFT network until Ctrl-C
 *   alder operator generate-blockchain-config --config-file=FILE --to=DIR [--genesis-file-name=NAME]
 *         [--private-key-file-name=NAME] [--public-key-file-name=NAME]
 *   alder password hash --password=PASSWORD          print a bcrypt hash for a credentials file
 *   alder rlp encode|decode [--type=IBFT_EXTRA_DATA|QBFT_EXTRA_DATA] [--from=FILE] [--to=FILE]
 *   alder [options] public-key export [--to=FILE]    the node key's public key (the enode id)
 *   alder [options] public-key export-address [--to=FILE]
 *
 * Errors print one line on stderr and exit non-zero; the stack trace only with --logging=DEBUG
 * (or TRACE, ALL).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, resolveConfig } from '../config/load.js';
import {
  addOptionsTo,
  booleanFlagNames,
  commandLineValues,
  normalizeBooleanFlags,
} from '../config/options.js';
import type { Config } from '../config/types.js';
import { BLOCKS_PER_SEGMENT } from '../filters/bloomCache.js';
import type {
  BloomCacheOptions,
  BloomCacheSummary,
  ExportOptions,
  ImportOptions,
  ImportSummary,
  RunningNode,
  StartOptions,
} from '../node.js';
import { extractPluginArgs } from '../plugins/service.js';
import { createProgress } from './progress.js';

/** What main talks to; tests replace parts of it. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  exit(code: number): void;
  /** Resolves when the node should stop (SIGINT or SIGTERM). */
  waitForShutdown(): Promise<string>;
  startNode(config: Config, opts?: StartOptions): Promise<RunningNode>;
  importBlocks(config: Config, files: string[], opts: ImportOptions): Promise<ImportSummary>;
  exportBlocks(config: Config, opts: ExportOptions): Promise<number>;
  generateLogBloomCache(config: Config, opts: BloomCacheOptions): Promise<BloomCacheSummary>;
  hashPassword(password: string): Promise<string>;
}

const SUBCOMMAND_BOOLEANS = ['--skip-pow-validation-enabled', '--run'];

export async function main(argv: string[], overrides: Partial<CliIo> = {}): Promise<void> {
  const io: CliIo = { ...defaultIo(), ...overrides };
  // Plugin options are declared by the plugins, known only once they load: set aside until then.
  const { argv: nodeArgv, pluginArgs } = extractPluginArgs(argv);
  const program = buildProgram(io, pluginArgs);
  let code = 0;
  try {
    await program.parseAsync(
      normalizeBooleanFlags(nodeArgv, [...booleanFlagNames(), ...SUBCOMMAND_BOOLEANS]),
      {
        from: 'user',
      },
    );
  } catch (err) {
    code = reportError(err, io, argv);
  }
  io.exit(code);
}

function buildProgram(io: CliIo, pluginArgs: ReadonlyMap<string, string>): Command {
  const program = new Command('alder')
    .description(
      'Alder, an Ethereum execution node with the JSON-RPC interface and options of Hyperledger Besu',
    )
    .version(`alder/v${packageVersion()}`, '-V, --version', 'Print version information and exit')
    .helpOption('-h, --help', 'Show this help message and exit')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s),
    });
  addOptionsTo(program);
  const config = (): Config => resolveConfig(commandLineValues(program.opts()), io.env);

  program.allowExcessArguments(true).action(async (_opts: unknown, cmd: Command) => {
    if (cmd.args[0] === 'help') program.help();
    if (cmd.args.length > 0) {
      throw new ConfigError(
        `Unknown command '${cmd.args[0]}' (commands: blocks, dev-network, operator, password, public-key, rlp; see alder --help)`,
      );
    }
    await runNode(config(), io, pluginArgs);
  });

  const blocks = program
    .command('blocks')
    .description('Import or export blocks')
    .exitOverride()
    .allowExcessArguments(false);

  blocks
    .command('import')
    .description('Import blocks from files of concatenated RLP-encoded blocks')
    .argument('[files...]', 'files to import (same as --from)')
    .addOption(new Option('--from <FILE>', 'file to import; repeat for several files').argParser(collect))
    .addOption(
      new Option(
        '--skip-pow-validation-enabled [BOOLEAN]',
        'Skip proof-of-work validation of imported blocks (default: false)',
      ),
    )
    .addOption(new Option('--format <FORMAT>', 'Format of the files: RLP (default: RLP)'))
    .addOption(new Option('--run [BOOLEAN]', 'Start the node after importing (default: false)'))
    .exitOverride()
    .action(async (files: string[], opts: Record<string, unknown>) => {
      const all = [...((opts.from as string[] | undefined) ?? []), ...files];
      if (all.length === 0) throw new ConfigError('No files specified to import. Use --from=<FILE>.');
      const format = ((opts.format as string | undefined) ?? 'RLP').toUpperCase();
      if (format !== 'RLP')
        throw new ConfigError(`Unsupported block import format '${opts.format}': Alder imports RLP files`);
      for (const f of all) if (!existsSync(f)) throw new ConfigError(`Block file not found: ${f}`);
      const cfg = config();
      const summary = await importWithProgress(
        cfg,
        all,
        flag(opts.skipPowValidationEnabled, '--skip-pow-validation-enabled'),
        io,
      );
      io.stdout.write(
        `Imported ${summary.imported} block${summary.imported === 1 ? '' : 's'}` +
          `${summary.skipped > 0 ? ` (${summary.skipped} already known)` : ''}; ` +
          `head is block ${summary.head.number} ${summary.head.hash}\n`,
      );
      if (flag(opts.run, '--run')) await runNode(cfg, io, pluginArgs);
    });

  blocks
    .command('export')
    .description('Export a block, or a range of blocks, as concatenated RLP')
    .addOption(new Option('--start-block <LONG>', 'First block to export (default: 0)'))
    .addOption(
      new Option(
        '--end-block <LONG>',
        'Block after the last one to export (exclusive); if absent, one block is exported',
      ),
    )
    .requiredOption('--to <FILE>', 'File to write the blocks to')
    .exitOverride()
    .action(async (opts: Record<string, unknown>) => {
      const from = blockNumber(opts.startBlock, '--start-block') ?? 0n;
      const to = blockNumber(opts.endBlock, '--end-block');
      if (to !== undefined && to <= from) {
        throw new ConfigError(`--end-block (${to}) must be greater than --start-block (${from})`);
      }
      const file = opts.to as string;
      const progress = createProgress(io.stderr, { label: 'Exporting blocks', unit: 'blocks' });
      let count: number;
      try {
        count = await io.exportBlocks(config(), {
          from,
          to,
          file,
          onProgress: (done, total) => progress.update(done, total),
        });
      } finally {
        progress.finish();
      }
      io.stdout.write(`Exported ${count} block${count === 1 ? '' : 's'} to ${file}\n`);
    });

  const operator = program
    .command('operator')
    .description('Operator utilities')
    .exitOverride()
    .allowExcessArguments(false);
  operator
    .command('generate-log-bloom-cache')
    .description('Generate the log bloom cache files of the chain in <data-path>/caches')
    .addOption(
      new Option(
        '--start-block <LONG>',
        `The block to start generating the cache; a multiple of ${BLOCKS_PER_SEGMENT} (default: 0)`,
      ),
    )
    .addOption(
      new Option('--end-block <LONG>', 'The block to stop generating the cache (default: the chain head)'),
    )
    .exitOverride()
    .action(async (opts: Record<string, unknown>) => {
      const start = blockNumber(opts.startBlock, '--start-block') ?? 0n;
      const end = blockNumber(opts.endBlock, '--end-block');
      if (start % BigInt(BLOCKS_PER_SEGMENT) !== 0n) {
        throw new ConfigError(`Start block must be an even increment of ${BLOCKS_PER_SEGMENT}`);
      }
      const progress = createProgress(io.stderr, { label: 'Generating log bloom cache', unit: 'blocks' });
      let summary: BloomCacheSummary;
      try {
        summary = await io.generateLogBloomCache(config(), {
          start,
          end,
          onProgress: (done, total) => progress.update(done, total),
        });
      } finally {
        progress.finish();
      }
      io.stdout.write(
        `Wrote the log blooms of blocks ${summary.from} to ${summary.to} in ${summary.segments} segment file${summary.segments === 1 ? '' : 's'} under ${summary.dir}\n`,
      );
    });

  program
    .command('dev-network')
    .description(
      'Start a local IBFT 2.0 or QBFT network of validator nodes on 127.0.0.1 until Ctrl-C (keys, genesis and data under --data-path)',
    )
    .addOption(new Option('--consensus <NAME>', 'qbft or ibft2').default('qbft'))
    .addOption(new Option('--validators <COUNT>', 'Number of validator nodes (1 to 16)').default('4'))
    .addOption(new Option('--data-path <PATH>', 'Directory of the network (default: a new temporary one)'))
    .addOption(new Option('--block-period <SECONDS>', 'blockperiodseconds of the genesis').default('1'))
    .addOption(new Option('--request-timeout <SECONDS>', 'requesttimeoutseconds of the genesis').default('1'))
    .addOption(new Option('--chain-id <ID>', 'Chain id of the genesis').default('1337'))
    .allowExcessArguments(true)
    .exitOverride()
    .action(async (opts: Record<string, string>, cmd: Command) => {
      const consensus = String(opts.consensus).toLowerCase();
      if (consensus !== 'qbft' && consensus !== 'ibft2')
        throw new ConfigError(`Invalid value for option '--consensus': '${opts.consensus}' (qbft or ibft2)`);
      const int = (v: string, name: string, min: number) => {
        if (!/^[0-9]+$/.test(String(v)) || Number(v) < min)
          throw new ConfigError(`Invalid value for option '${name}': '${v}'`);
        return Number(v);
      };
      const { runDevNetwork } = await import('./devNetwork.js');
      await runDevNetwork(
        {
          consensus,
          validators: int(opts.validators as string, '--validators', 1),
          // --data-path is also the node's global option: given before or after the command name.
          dataPath:
            opts.dataPath ??
            (program.getOptionValueSource('dataPath') === 'cli'
              ? String(program.opts().dataPath)
              : undefined),
          blockPeriodSeconds: int(opts.blockPeriod as string, '--block-period', 1),
          requestTimeoutSeconds: int(opts.requestTimeout as string, '--request-timeout', 1),
          chainId: int(opts.chainId as string, '--chain-id', 1),
          // Options after `--` go to every node (e.g. -- --logging=DEBUG).
          nodeArgs: cmd.args,
        },
        io,
      );
    });

  operator
    .command('generate-blockchain-config')
    .description(
      'Generate node keys and an IBFT 2.0 or QBFT genesis file whose extraData lists the nodes as validators',
    )
    .addOption(new Option('--config-file <FILE>', 'Configuration file.'))
    .addOption(new Option('--to <DIRECTORY>', 'Directory to write output files to.'))
    .addOption(new Option('--genesis-file-name <PATH>', 'Name of the genesis file.').default('genesis.json'))
    .addOption(
      new Option('--private-key-file-name <PATH>', 'Name of the private key file.').default('key.priv'),
    )
    .addOption(new Option('--public-key-file-name <PATH>', 'Name of the public key file.').default('key.pub'))
    .exitOverride()
    .action(async (opts: Record<string, string>) => {
      // The node's own --config-file (its TOML file) takes the option when it is written anywhere on
      // the command line; here it names this command's JSON file.
      const configFile = opts.configFile ?? (program.opts().configFile as string | undefined);
      if (!configFile) throw new ConfigError("Missing required option: '--config-file=<FILE>'");
      if (!opts.to) throw new ConfigError("Missing required option: '--to=<DIRECTORY>'");
      const { generateBlockchainConfig } = await import('./blockchainConfig.js');
      const summary = generateBlockchainConfig({
        configFile,
        to: opts.to,
        genesisFileName: opts.genesisFileName,
        privateKeyFileName: opts.privateKeyFileName,
        publicKeyFileName: opts.publicKeyFileName,
      });
      io.stdout.write(
        `Wrote ${summary.genesisFile}${summary.consensus ? ` (${summary.consensus === 'qbft' ? 'QBFT' : 'IBFT 2.0'} extraData with ${summary.addresses.length} validator${summary.addresses.length === 1 ? '' : 's'})` : ''} and ${summary.addresses.length} key folder${summary.addresses.length === 1 ? '' : 's'} under ${summary.keysDir}\n`,
      );
    });

  const rlp = program
    .command('rlp')
    .description('This command provides RLP data related actions.')
    .exitOverride()
    .allowExcessArguments(false);
  const rlpOptions = (verb: 'encode' | 'decode') => [
    new Option(
      '--type <type>',
      `Type of the RLP data to ${verb === 'encode' ? 'encode' : 'Decode'} (default: IBFT_EXTRA_DATA)`,
    ).choices(['IBFT_EXTRA_DATA', 'QBFT_EXTRA_DATA']),
    new Option('--from <FILE>', `File containing JSON object to ${verb}`),
    new Option('--to <FILE>', `File to write ${verb === 'encode' ? 'encoded' : 'decoded'} RLP string to.`),
  ];
  const rlpEncodeCmd = rlp
    .command('encode')
    .description('This command encodes a JSON typed data into an RLP hex string.')
    .exitOverride();
  for (const o of rlpOptions('encode')) rlpEncodeCmd.addOption(o);
  rlpEncodeCmd.action(async (opts: { type?: string; from?: string; to?: string }) => {
    const { rlpEncode } = await import('./rlp.js');
    io.stdout.write(rlpEncode(opts));
  });
  const rlpDecodeCmd = rlp
    .command('decode')
    .description('This command decodes a JSON typed RLP hex string into validator list.')
    .exitOverride();
  for (const o of rlpOptions('decode')) rlpDecodeCmd.addOption(o);
  rlpDecodeCmd.action(async (opts: { type?: string; from?: string; to?: string }) => {
    const { rlpDecode } = await import('./rlp.js');
    io.stdout.write(rlpDecode(opts));
  });

  const password = program
    .command('password')
    .description('Password utilities')
    .exitOverride()
    .allowExcessArguments(false);
  password
    .command('hash')
    .description('Print the bcrypt hash of a password, for a JSON-RPC credentials file')
    .requiredOption('--password <PASSWORD>', 'Password to hash')
    .exitOverride()
    .action(async (opts: { password: string }) => {
      io.stdout.write(`${await io.hashPassword(opts.password)}\n`);
    });

  const publicKey = program
    .command('public-key')
    .description("The node key's public key or address")
    .exitOverride()
    .allowExcessArguments(false);
  const exportKey = (what: 'key' | 'address') => async (opts: { to?: string }) => {
    const cfg = config();
    const { loadOrCreateNodeKey, nodeAddress, nodePublicKey } = await import('../crypto/nodeKey.js');
    const key = loadOrCreateNodeKey(cfg.nodePrivateKeyFile ?? join(cfg.dataPath, 'key'));
    const text = what === 'key' ? `0x${Buffer.from(nodePublicKey(key)).toString('hex')}` : nodeAddress(key);
    if (opts.to) writeFileSync(opts.to, text);
    else io.stdout.write(`${text}\n`);
  };
  publicKey
    .command('export')
    .description('Print the public key of the node key (the enode id), or write it to a file')
    .addOption(new Option('--to <FILE>', 'File to write the public key to instead of standard output'))
    .exitOverride()
    .action(exportKey('key'));
  publicKey
    .command('export-address')
    .description('Print the address of the node key, or write it to a file')
    .addOption(new Option('--to <FILE>', 'File to write the address to instead of standard output'))
    .exitOverride()
    .action(exportKey('address'));

  return program;
}

async function runNode(config: Config, io: CliIo, pluginArgs: ReadonlyMap<string, string>): Promise<void> {
  const node = await io.startNode(config, pluginArgs.size > 0 ? { pluginArgs } : undefined);
  const stopped = io.waitForShutdown().then(() => undefined);
  const failure = await (node.failure ? Promise.race([stopped, node.failure]) : stopped);
  await node.stop();
  if (failure !== undefined) throw failure;
}

async function importWithProgress(
  config: Config,
  files: string[],
  skipPowValidation: boolean,
  io: CliIo,
): Promise<ImportSummary> {
  const progress = createProgress(io.stderr, { label: 'Importing blocks', unit: 'blocks' });
  const onProgress = (imported: number, total: number | undefined, number: bigint): void =>
    progress.update(imported, total, `block ${number}`);
  try {
    return await io.importBlocks(config, files, { skipPowValidation, onProgress });
  } finally {
    progress.finish();
  }
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (value === true) return true;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ConfigError(`Invalid value for option '${name}': '${String(value)}' is not a boolean`);
}

function blockNumber(value: unknown, name: string): bigint | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(text)) {
    throw new ConfigError(`Invalid value for option '${name}': '${text}' is not a non-negative block number`);
  }
  return BigInt(text);
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Prints the error and returns the exit code. */
function reportError(err: unknown, io: CliIo, argv: string[]): number {
  if (err instanceof CommanderError) {
    // Commander has already printed its message (or the help / version text).
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
    // Help shown because a subcommand is missing ('alder blocks') keeps commander's code.
    if (err.code === 'commander.help') return err.exitCode;
    return err.exitCode === 0 ? 0 : 2;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (wantsStackTraces(argv, io.env) && err instanceof Error && err.stack !== undefined) {
    io.stderr.write(`${err.stack}\n`);
  } else {
    io.stderr.write(`${message.split('\n')[0]}\n`);
  }
  // Usage and configuration problems exit with 2, as Besu's command-line errors do; failures with 1.
  return err instanceof ConfigError ? 2 : 1;
}

/** True when the log level asks for debugging output; read from the raw arguments (the config may not have loaded). */
function wantsStackTraces(argv: string[], env: NodeJS.ProcessEnv): boolean {
  const levels = /^(DEBUG|TRACE|ALL)$/i;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const m = /^(?:--logging|-l)=(.*)$/.exec(a);
    if (m && levels.test(m[1] as string)) return true;
    if ((a === '--logging' || a === '-l') && levels.test(argv[i + 1] ?? '')) return true;
  }
  return levels.test(env.ALDER_LOGGING ?? '');
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function defaultIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    exit: (code) => process.exit(code),
    waitForShutdown,
    startNode: async (config, opts) => (await import('../node.js')).startNode(config, opts),
    importBlocks: async (config, files, opts) =>
      (await import('../node.js')).importBlocks(config, files, opts),
    exportBlocks: async (config, opts) => (await import('../node.js')).exportBlocks(config, opts),
    generateLogBloomCache: async (config, opts) =>
      (await import('../node.js')).generateLogBloomCache(config, opts),
    hashPassword: async (password) => (await import('../rpc/auth/password.js')).hashPassword(password),
  };
}

/** Resolves on the first SIGINT/SIGTERM; a second one while stopping exits at once. */
function waitForShutdown(): Promise<string> {
  return new Promise((resolve) => {
    // Keeps the process alive: a node with no open listener would otherwise let the event loop drain.
    const keepAlive = setInterval(() => {}, 1 << 30);
    const onSignal = (signal: NodeJS.Signals): void => {
      clearInterval(keepAlive);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      const force = (): void => process.exit(130);
      process.once('SIGINT', force);
      process.once('SIGTERM', force);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
