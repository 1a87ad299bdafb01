/**
 * Plugin loading and life cycle. Plugins are ES modules found in `<data-path>/plugins` (`*.js`, `*.mjs`,
 * or a folder with `index.js`/`index.mjs`), or named by `--plugins` (a name found there, or a path).
 * Each is imported, checked, given its options and a context, and registered; a failure stops the
 * start unless `--plugin-continue-on-error`, which logs it and skips that plugin.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bytesToHex, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import { ConfigError } from '../config/errors.js';
import {
  type BloomSource,
  blockLogs,
  canonicalLogs,
  compileLogQuery,
  type LogEntry,
  type LogQuery,
} from '../filters/logs.js';
import { logger } from '../log.js';
import type { WorldState } from '../state/worldState.js';
import type { PooledTx, TxPool } from '../txpool/pool.js';
import type {
  AlderPlugin,
  PluginBlockEvent,
  PluginChainReader,
  PluginContext,
  PluginLog,
  PluginLogFilter,
  PluginOptionSpec,
  PluginOptionValues,
  PluginRpcHandler,
  PluginTransactionEvent,
} from './api.js';

/** Namespaces of Alder's own API groups: a plugin cannot take them. */
const RESERVED_NAMESPACES = new Set([
  'admin',
  'clique',
  'debug',
  'eea',
  'engine',
  'eth',
  'ibft',
  'miner',
  'net',
  'perm',
  'plugins',
  'priv',
  'qbft',
  'rpc',
  'trace',
  'txpool',
  'web3',
  'testing',
]);

export class PluginError extends Error {
  override name = 'PluginError';
}

export interface PluginSources {
  chain: ChainStore;
  world: WorldState;
  txPool?: TxPool;
  /** The log bloom cache, for `chain.getLogs`. */
  blooms?: BloomSource;
}

export interface PluginLoadOptions {
  dataPath: string;
  /** `--plugins`: names or paths; undefined loads every plugin found. */
  plugins: readonly string[] | undefined;
  continueOnError: boolean;
  /** `--plugin-<name>-<option>` values from the command line, by `<name>-<option>`. */
  args: ReadonlyMap<string, string>;
  /** `plugin-<name>-<option>` keys of the TOML config file, by `<name>-<option>`. */
  fileArgs?: ReadonlyMap<string, string>;
  env: NodeJS.ProcessEnv;
}

export interface PluginMethod {
  plugin: string;
  name: string;
  handler: PluginRpcHandler;
}

interface Loaded {
  plugin: AlderPlugin;
  file: string;
  unsubscribes: (() => void)[];
}

function pluginFiles(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    const ext = extname(entry);
    if (statSync(path).isDirectory()) {
      for (const index of ['index.mjs', 'index.js']) {
        if (existsSync(join(path, index))) {
          found.set(entry, join(path, index));
          break;
        }
      }
    } else if (ext === '.mjs' || ext === '.js') {
      found.set(basename(entry, ext), path);
    }
  }
  return found;
}

const hex = (b: Uint8Array): string => bytesToHex(b);

function toPluginLog(l: LogEntry): PluginLog {
  return {
    address: hex(l.address),
    topics: l.topics.map(hex),
    data: hex(l.data),
    blockNumber: l.blockNumber,
    blockHash: hex(l.blockHash),
    transactionHash: hex(l.transactionHash),
    transactionIndex: l.transactionIndex,
    logIndex: l.logIndex,
    removed: l.removed,
  };
}

function toLogQuery(filter: PluginLogFilter): LogQuery {
  return {
    addresses: (filter.addresses ?? []).map((a) => hexToBytes(a as `0x${string}`)),
    topics: (filter.topics ?? []).map((t) => {
      if (t === null) return null;
      const list = typeof t === 'string' ? [t] : t;
      return list.map((x) => hexToBytes(x as `0x${string}`));
    }),
  };
}

function toTxEvent(t: PooledTx): PluginTransactionEvent {
  return { hash: hex(t.hash), from: t.sender.toString(), nonce: t.tx.nonce, local: t.local };
}

export class PluginService {
  private readonly loaded = new Map<string, Loaded>();
  private readonly methodTable = new Map<string, PluginMethod>();
  private readonly log = logger('plugins');

  constructor(private readonly sources: PluginSources) {}

  /** Names of the registered plugins, in load order. */
  names(): string[] {
    return [...this.loaded.keys()];
  }

  has(name: string): boolean {
    return this.loaded.has(name);
  }

  /** The JSON-RPC methods the plugins registered. */
  methods(): PluginMethod[] {
    return [...this.methodTable.values()];
  }

  /** Finds, imports and registers the plugins. */
  async load(opts: PluginLoadOptions): Promise<void> {
    const dir = join(opts.dataPath, 'plugins');
    const found = pluginFiles(dir);
    let files: string[];
    if (opts.plugins === undefined) {
      files = [...found.values()];
    } else {
      const missing: string[] = [];
      files = [];
      for (const entry of opts.plugins) {
        const byName = found.get(entry);
        const asPath = isAbsolute(entry) || /[/\\]/.test(entry) ? resolve(entry) : undefined;
        if (byName) files.push(byName);
        else if (asPath && existsSync(asPath)) files.push(asPath);
        else missing.push(entry);
      }
      if (missing.length > 0) {
        this.fail(
          new PluginError(`Plugin(s) not found: ${missing.join(', ')} (looked in ${dir})`),
          opts.continueOnError,
        );
      }
    }
    const claimed = new Set<string>();
    for (const file of files) {
      try {
        const plugin = await this.importPlugin(file);
        if (this.loaded.has(plugin.name))
          throw new PluginError(`Plugin name '${plugin.name}' is used by two plugins`);
        await this.register(plugin, file, opts, claimed);
        this.log.info(`Registered plugin ${plugin.name} from ${file}`);
      } catch (err) {
        if (err instanceof ConfigError) throw err;
        this.fail(
          err instanceof PluginError
            ? err
            : new PluginError(`Plugin ${file} failed to load: ${(err as Error).message ?? String(err)}`),
          opts.continueOnError,
        );
      }
    }
    // Every --plugin-… value (and plugin-… key of the config file) must belong to a loaded plugin's option.
    const unknown = [...opts.args.keys()].filter((k) => !claimed.has(k));
    if (unknown.length > 0) {
      throw new ConfigError(
        `Unknown option${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => `'--plugin-${k}'`).join(', ')} (no loaded plugin declares ${unknown.length > 1 ? 'them' : 'it'})`,
      );
    }
    const unknownKeys = [...(opts.fileArgs?.keys() ?? [])].filter((k) => !claimed.has(k));
    if (unknownKeys.length > 0) {
      throw new ConfigError(
        `Unknown option${unknownKeys.length > 1 ? 's' : ''} in TOML configuration file: ${unknownKeys.map((k) => `plugin-${k}`).join(', ')} (no loaded plugin declares ${unknownKeys.length > 1 ? 'them' : 'it'})`,
      );
    }
  }

  /**
   * Besu's test for an API-list entry that is not a built-in group: some plugin method's name starts
   * with it, case-insensitively (so naming the namespace enables the plugin's methods).
   */
  hasNamespace(api: string): boolean {
    const prefix = api.toUpperCase();
    for (const name of this.methodTable.keys()) if (name.toUpperCase().startsWith(prefix)) return true;
    return false;
  }

  private fail(err: PluginError, continueOnError: boolean): void {
    if (!continueOnError) throw err;
    this.log.error(`${err.message}; continuing (--plugin-continue-on-error)`);
  }

  private async importPlugin(file: string): Promise<AlderPlugin> {
    const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    let plugin = mod.default;
    if (typeof plugin === 'function') plugin = await (plugin as () => unknown)();
    const p = plugin as Partial<AlderPlugin> | undefined;
    if (!p || typeof p !== 'object' || typeof p.register !== 'function') {
      throw new PluginError(
        `Plugin ${file} does not export a plugin (an object with a name and a register function)`,
      );
    }
    if (typeof p.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(p.name)) {
      throw new PluginError(`Plugin ${file} has no valid name (lower-case letters, digits and dashes)`);
    }
    return p as AlderPlugin;
  }

  private async register(
    plugin: AlderPlugin,
    file: string,
    opts: PluginLoadOptions,
    claimed: Set<string>,
  ): Promise<void> {
    const namespace = plugin.namespace ?? plugin.name.replace(/-/g, '');
    if (!/^[a-z][a-z0-9]*$/.test(namespace) || RESERVED_NAMESPACES.has(namespace)) {
      throw new PluginError(`Plugin ${plugin.name} cannot use the JSON-RPC namespace '${namespace}'`);
    }
    const options = this.optionValues(plugin, opts, claimed);
    const loaded: Loaded = { plugin, file, unsubscribes: [] };
    const registered: PluginMethod[] = [];
    const context: PluginContext = {
      name: plugin.name,
      namespace,
      options,
      dataPath: opts.dataPath,
      log: logger(`plugins.${plugin.name}`),
      registerRpcMethod: (method, handler) => {
        if (!/^[a-zA-Z][a-zA-Z0-9]*$/.test(method) || typeof handler !== 'function') {
          throw new PluginError(`Plugin ${plugin.name}: invalid JSON-RPC method '${method}'`);
        }
        const name = `${namespace}_${method}`;
        if (this.methodTable.has(name) || registered.some((m) => m.name === name)) {
          throw new PluginError(`Plugin ${plugin.name}: JSON-RPC method ${name} is already registered`);
        }
        registered.push({ plugin: plugin.name, name, handler });
      },
      events: this.events(loaded),
      chain: this.reader(),
    };
    try {
      await plugin.register(context);
    } catch (err) {
      for (const u of loaded.unsubscribes) u();
      throw new PluginError(
        `Plugin ${plugin.name} failed to register: ${(err as Error).message ?? String(err)}`,
      );
    }
    for (const m of registered) this.methodTable.set(m.name, m);
    this.loaded.set(plugin.name, loaded);
  }

  private optionValues(
    plugin: AlderPlugin,
    opts: PluginLoadOptions,
    claimed: Set<string>,
  ): PluginOptionValues {
    const values: PluginOptionValues = {};
    for (const spec of plugin.options ?? []) {
      const key = `${plugin.name}-${spec.name}`;
      const envName = `ALDER_PLUGIN_${key.toUpperCase().replace(/-/g, '_')}`;
      // Command line, then environment, then the config file, as for Alder's own options.
      const raw = opts.args.get(key) ?? opts.env[envName] ?? opts.fileArgs?.get(key);
      claimed.add(key);
      values[spec.name] = raw === undefined ? spec.default : convertOption(spec, raw, key);
    }
    return values;
  }

  private events(loaded: Loaded): PluginContext['events'] {
    const { chain, txPool } = this.sources;
    const track = (off: () => void) => {
      loaded.unsubscribes.push(off);
      return () => {
        off();
        loaded.unsubscribes = loaded.unsubscribes.filter((u) => u !== off);
      };
    };
    const safely =
      <T>(listener: (e: T) => void) =>
      (e: T) => {
        try {
          listener(e);
        } catch (err) {
          this.log.error({ err }, `Plugin ${loaded.plugin.name} failed in an event listener`);
        }
      };
    return {
      onNewBlock: (listener) => {
        const call = safely(listener);
        const onHead = (e: NewHeadEvent) => {
          for (const b of e.removed) call(blockEvent(b, true));
          for (const b of e.added) call(blockEvent(b, false));
        };
        chain.on('newHead', onHead);
        return track(() => chain.off('newHead', onHead));
      },
      onTransactionAdded: (listener) => {
        const call = safely(listener);
        const on = (t: PooledTx) => call(toTxEvent(t));
        txPool?.on('added', on);
        return track(() => txPool?.off('added', on));
      },
      onTransactionDropped: (listener) => {
        const call = safely(listener);
        const on = (t: PooledTx) => call(toTxEvent(t));
        txPool?.on('dropped', on);
        return track(() => txPool?.off('dropped', on));
      },
      onLogs: (filter, listener) => {
        const q = compileLogQuery(toLogQuery(filter));
        const call = safely(listener);
        const onHead = (e: NewHeadEvent) => {
          for (const b of e.removed)
            for (const l of blockLogs(chain, b.header, q, { removed: true, block: b })) call(toPluginLog(l));
          for (const b of e.added)
            for (const l of blockLogs(chain, b.header, q, { block: b })) call(toPluginLog(l));
        };
        chain.on('newHead', onHead);
        return track(() => chain.off('newHead', onHead));
      },
    };
  }

  private reader(): PluginChainReader {
    const { chain, world } = this.sources;
    const stateAt = (blockNumber?: bigint) => {
      const header = blockNumber === undefined ? chain.headHeader() : chain.getHeaderByNumber(blockNumber);
      if (!header) throw new PluginError(`Block ${blockNumber} is not in the chain`);
      return world.at(header.stateRoot);
    };
    return {
      head: () => {
        const h = chain.head();
        return { number: h.number, hash: hex(h.hash) };
      },
      getBlockByNumber: (n) => chain.getBlockByNumber(n),
      getBlockByHash: (h) => chain.getBlock(hexToBytes(h as `0x${string}`)),
      getLogs: (from, to, filter) =>
        canonicalLogs(chain, from, to, compileLogQuery(toLogQuery(filter)), this.sources.blooms).map(
          toPluginLog,
        ),
      getAccount: async (address, blockNumber) => {
        const account = await stateAt(blockNumber).getAccount(createAddressFromString(address));
        return account
          ? { balance: account.balance, nonce: account.nonce, codeHash: hex(account.codeHash) }
          : undefined;
      },
      getCode: async (address, blockNumber) =>
        hex(await stateAt(blockNumber).getCode(createAddressFromString(address))),
      getStorageAt: async (address, slot, blockNumber) => {
        const key = hexToBytes(`0x${slot.toString(16).padStart(64, '0')}`);
        const value = await stateAt(blockNumber).getStorage(createAddressFromString(address), key);
        return `0x${Buffer.from(value).toString('hex').padStart(64, '0')}`;
      },
    };
  }

  /** Calls every plugin's `start`. */
  async start(): Promise<void> {
    for (const { plugin } of this.loaded.values()) await plugin.start?.();
  }

  /** Calls every plugin's `stop` (errors logged) and drops their subscriptions. */
  async stop(): Promise<void> {
    for (const { plugin, unsubscribes } of [...this.loaded.values()].reverse()) {
      for (const u of unsubscribes) u();
      try {
        await plugin.stop?.();
      } catch (err) {
        this.log.error({ err }, `Plugin ${plugin.name} failed to stop`);
      }
    }
  }

  /**
   * Reloads the configuration of one plugin or of all; resolves with `name:success` or
   * `name:failure(message)` per plugin and whether all succeeded.
   */
  async reload(name?: string): Promise<{ ok: boolean; results: string[] }> {
    const targets = name === undefined ? [...this.loaded.values()] : [this.loaded.get(name) as Loaded];
    const results: string[] = [];
    let ok = true;
    await Promise.all(
      targets.map(async ({ plugin }, i) => {
        this.log.info(`Reloading plugin configuration: ${plugin.name}`);
        try {
          await plugin.reloadConfiguration?.();
          results[i] = `${plugin.name}:success`;
          this.log.info(`Plugin ${plugin.name} has been reloaded successfully`);
        } catch (err) {
          ok = false;
          results[i] = `${plugin.name}:failure(${(err as Error).message ?? String(err)})`;
          this.log.error({ err }, `Failed to reload plugin ${plugin.name}`);
        }
      }),
    );
    return { ok, results };
  }
}

function blockEvent(b: import('@ethereumjs/block').Block, removed: boolean): PluginBlockEvent {
  return {
    number: b.header.number,
    hash: hex(b.hash()),
    parentHash: hex(b.header.parentHash),
    timestamp: b.header.timestamp,
    transactionCount: b.transactions.length,
    gasUsed: b.header.gasUsed,
    removed,
    block: b,
  };
}

function convertOption(spec: PluginOptionSpec, raw: string, key: string): string | number | boolean {
  switch (spec.type) {
    case 'int': {
      if (!/^-?[0-9]+$/.test(raw.trim()))
        throw new ConfigError(`Invalid value for option '--plugin-${key}': '${raw}' is not an int`);
      return Number(raw.trim());
    }
    case 'boolean': {
      if (!/^(true|false)$/i.test(raw.trim()))
        throw new ConfigError(`Invalid value for option '--plugin-${key}': '${raw}' is not a boolean`);
      return raw.trim().toLowerCase() === 'true';
    }
    default:
      return raw;
  }
}

/**
 * Splits `--plugin-<name>-<option>[=value]` arguments (other than Alder's own `--plugins` and
 * `--plugin-continue-on-error`) from the command line, before the command-line parser sees them.
 */
export function extractPluginArgs(argv: readonly string[]): {
  argv: string[];
  pluginArgs: Map<string, string>;
} {
  const own = new Set(['--plugins', '--plugin-continue-on-error']);
  const out: string[] = [];
  const pluginArgs = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const m = /^--plugin-([a-z0-9][a-z0-9-]*)(?:=(.*))?$/s.exec(a);
    if (!m || own.has(a.split('=')[0] as string)) {
      out.push(a);
      continue;
    }
    let value = m[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      } else {
        value = 'true';
      }
    }
    pluginArgs.set(m[1] as string, value);
  }
  return { argv: out, pluginArgs };
}
