/**
 * What a plugin is and what it sees. A plugin is an ES module whose default export is an
 * `AlderPlugin` (or a function returning one, possibly asynchronously). See README.md in this folder.
 */
import type { Block } from '@ethereumjs/block';
import type { Logger } from 'pino';

/** An option a plugin declares: given as `--plugin-<plugin name>-<name>=<value>` or `ALDER_PLUGIN_<NAME>_<NAME>`. */
export interface PluginOptionSpec {
  /** Lower-case words joined by dashes, e.g. `greeting`. */
  name: string;
  type: 'string' | 'int' | 'boolean';
  default?: string | number | boolean;
  help: string;
}

export type PluginOptionValues = Record<string, string | number | boolean | undefined>;

export interface AlderPlugin {
  /** Unique lower-case name (letters, digits, dashes): `--plugins`, option names, plugins_reloadPluginConfig. */
  name: string;
  /** The JSON-RPC namespace of the plugin's methods (`<namespace>_<method>`); default: the name without dashes. */
  namespace?: string;
  options?: readonly PluginOptionSpec[];
  /** Called once at start, before the node serves requests: register methods, subscribe to events. */
  register(context: PluginContext): void | Promise<void>;
  /** Called when the node runs (after the JSON-RPC servers started). */
  start?(): void | Promise<void>;
  /** Called when the node stops. */
  stop?(): void | Promise<void>;
  /** plugins_reloadPluginConfig: re-read the plugin's own configuration. */
  reloadConfiguration?(): void | Promise<void>;
}

/** A block that became canonical (or left the canonical chain, `removed`). */
export interface PluginBlockEvent {
  number: bigint;
  hash: string;
  parentHash: string;
  timestamp: bigint;
  transactionCount: number;
  gasUsed: bigint;
  /** True for blocks taken off the canonical chain by a reorg. */
  removed: boolean;
  block: Block;
}

export interface PluginTransactionEvent {
  hash: string;
  from: string;
  nonce: bigint;
  /** True when the transaction came through JSON-RPC. */
  local: boolean;
}

export interface PluginLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: bigint;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
  removed: boolean;
}

/** Which logs a log subscription receives: addresses (any of), topics per position (any of, null = any). */
export interface PluginLogFilter {
  addresses?: readonly string[];
  topics?: readonly (readonly string[] | string | null)[];
}

export type Unsubscribe = () => void;

export interface PluginEvents {
  onNewBlock(listener: (event: PluginBlockEvent) => void): Unsubscribe;
  onTransactionAdded(listener: (event: PluginTransactionEvent) => void): Unsubscribe;
  onTransactionDropped(listener: (event: PluginTransactionEvent) => void): Unsubscribe;
  onLogs(filter: PluginLogFilter, listener: (log: PluginLog) => void): Unsubscribe;
}

export interface PluginAccount {
  balance: bigint;
  nonce: bigint;
  codeHash: string;
}

/** Reads of the chain and of the world state (at the head unless a block number is given). */
export interface PluginChainReader {
  head(): { number: bigint; hash: string };
  getBlockByNumber(number: bigint): Block | undefined;
  getBlockByHash(hash: string): Block | undefined;
  getLogs(from: bigint, to: bigint, filter: PluginLogFilter): PluginLog[];
  getAccount(address: string, blockNumber?: bigint): Promise<PluginAccount | undefined>;
  getCode(address: string, blockNumber?: bigint): Promise<string>;
  getStorageAt(address: string, slot: bigint, blockNumber?: bigint): Promise<string>;
}

/** A JSON-RPC method handler: the raw `params` array in, a JSON-ready value out. Throw to answer an error. */
export type PluginRpcHandler = (params: readonly unknown[]) => unknown | Promise<unknown>;

export interface PluginContext {
  name: string;
  namespace: string;
  /** The plugin's options, converted, with defaults. */
  options: PluginOptionValues;
  /** Directory of the node's data. */
  dataPath: string;
  /** This plugin's logger (`plugins.<name>`; admin_changeLogLevel reaches it). */
  log: Logger;
  /** Registers `<namespace>_<method>` (served when --rpc-http-api / --rpc-ws-api names the namespace). */
  registerRpcMethod(method: string, handler: PluginRpcHandler): void;
  events: PluginEvents;
  chain: PluginChainReader;
}

/** Thrown by a plugin's RPC handler to answer a JSON-RPC error with its own code and message. */
export class PluginRpcError extends Error {
  override name = 'PluginRpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
