/**
 * The one declaration of Alder's options. Everything else is derived from `OPTIONS`: the command-line
 * options (with `--help`), the TOML config-file keys (the option name without `--`), the environment
 * variables (`ALDER_` + upper snake case), the conversion and validation of values, and the README
 * table (`renderOptionsMarkdown()`).
 */
import { Command, Option } from 'commander';
import { UNSUPPORTED_BESU_NETWORKS } from './networks/index.js';
import { type Config, RPC_API_GROUPS } from './types.js';

export type OptionType =
  | 'string'
  | 'int'
  | 'number'
  | 'bigint'
  | 'boolean'
  | 'list'
  | 'path'
  | 'enum'
  | 'bytes'
  | 'address';

/** Config fields that options fill (everything but the parsed genesis). */
export type OptionField = Exclude<keyof Config, 'genesis'>;

export type Section =
  | 'Node'
  | 'P2P'
  | 'JSON-RPC over HTTP'
  | 'JSON-RPC over WebSocket'
  | 'GraphQL'
  | 'Engine API'
  | 'Gas price and limits'
  | 'Mining'
  | 'Transaction pool'
  | 'Privacy'
  | 'Metrics and plugins';

export interface OptionSpec<K extends OptionField = OptionField> {
  /** Long name, Besu's spelling: `--rpc-http-port`. */
  name: `--${string}`;
  /** Other long names accepted everywhere (Besu's aliases). */
  aliases?: `--${string}`[];
  short?: `-${string}`;
  type: OptionType;
  field: K;
  default: Config[K];
  /** How the README and `--help` show the default when it is computed. */
  defaultText?: string;
  help: string;
  section: Section;
  /** Value placeholder in `--help`. */
  label?: string;
  /** enum: accepted values (case-insensitive). list: accepted entries (case-sensitive). */
  choices?: readonly string[];
  /**
   * list: entries outside `choices` that may name a plugin's JSON-RPC namespace (letters and digits)
   * pass the parse; once the plugins are loaded the node refuses those no plugin method starts with.
   */
  pluginNamespaces?: boolean;
  min?: number;
  max?: number;
  maxBytes?: number;
  /** Replaces the type's parsing of a text value; throws `OptionValueError` with the detail. */
  parse?: (text: string) => unknown;
  /** Checks a converted value; returns a problem description, or undefined when fine. */
  check?: (value: unknown) => string | undefined;
  /**
   * Set while Alder lacks what the option asks for: the node then refuses, at start, any value other
   * than the default and `unavailable.alsoAccepts`, naming the option and the reason. The line goes
   * when the feature lands (test/config/options.test.ts fails on an option that is read and still
   * declared unavailable, and on one that is neither).
   */
  unavailable?: Unavailable;
}

export interface Unavailable {
  /** Said to the user: "metrics are not available yet". */
  reason: string;
  /**
   * Values accepted besides the default because they ask for nothing absent (`false` for a feature
   * that is on by default, `NONE`, an empty list); `'any'` when every value does.
   */
  alsoAccepts?: readonly unknown[] | 'any';
}

/** The detail of an invalid value ("'abc' is not an int"); the caller adds the option name. */
export class OptionValueError extends Error {}

const opt = <K extends OptionField>(spec: OptionSpec<K>): OptionSpec => spec as unknown as OptionSpec;

// Why options are refused (see `OptionSpec.unavailable`).
const GRAPHQL: Unavailable = { reason: 'GraphQL is not available yet' };
const PRIVACY: Unavailable = { reason: 'private transactions are not available yet' };

const PORT = { min: 0, max: 65535, label: '<PORT>' } as const;
const API_GROUPS_HELP = `comma-separated API groups (${RPC_API_GROUPS.join(', ')}) or a plugin's JSON-RPC namespace`;
const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'HS256'] as const;
/** What may name a plugin's JSON-RPC namespace in an API list (Besu: alphanumeric). */
export const PLUGIN_NAMESPACE = /^[A-Za-z0-9]+$/;
const LOG_LEVELS = ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL'] as const;

/** Metric categories (Besu's grouping; NODEJS takes the place of Besu's JVM). */
export const METRIC_CATEGORIES = [
  'BLOCKCHAIN',
  'BLOCK_PROCESSING',
  'ETHEREUM',
  'NETWORK',
  'NODEJS',
  'PEERS',
  'PROCESS',
  'RPC',
  'SYNCHRONIZER',
  'TRANSACTION_POOL',
] as const;

function parseMetricsProtocol(text: string): string {
  const v = text.trim().toUpperCase();
  if (v === 'PROMETHEUS') return v;
  if (v === 'OPENTELEMETRY' || v === 'NONE') {
    throw new OptionValueError(
      `metrics protocol '${text.trim()}' is not available in Alder (available: PROMETHEUS)`,
    );
  }
  throw new OptionValueError(`expected one of [PROMETHEUS] (case-insensitive) but was '${text}'`);
}

function parseNetwork(text: string): string {
  const v = text.trim();
  if (v.toLowerCase() === 'dev') return 'dev';
  if (v.toLowerCase() === 'pos-dev' || v.toLowerCase() === 'pos_dev') return 'pos-dev';
  if ((UNSUPPORTED_BESU_NETWORKS as readonly string[]).includes(v.toUpperCase())) {
    throw new OptionValueError(
      `network '${v}' is not available in Alder (built-in networks: DEV, POS-DEV); use --genesis-file to run another chain`,
    );
  }
  throw new OptionValueError(`expected one of [DEV, POS-DEV] (case-insensitive) but was '${v}'`);
}

function checkAllowlist(value: unknown): string | undefined {
  const list = value as string[];
  if (list.some((h) => h.toLowerCase() === 'none') && list.length > 1) {
    return "the value 'none' can't be used together with other hosts";
  }
  return undefined;
}

export const OPTIONS: readonly OptionSpec[] = [
  // --- Node
  opt({
    name: '--config-file',
    type: 'path',
    field: 'configFile',
    default: undefined,
    help: 'TOML config file; its keys are option names without the leading dashes (rpc-http-port=8545)',
    section: 'Node',
    label: '<FILE>',
  }),
  opt({
    name: '--data-path',
    type: 'path',
    field: 'dataPath',
    default: './.alder-data',
    help: 'Directory of the database, node key, caches and other data',
    section: 'Node',
    label: '<PATH>',
  }),
  opt({
    name: '--network',
    type: 'enum',
    field: 'network',
    default: undefined,
    defaultText: 'none; a network or a genesis file is required',
    help: "Built-in network to run: DEV (Besu's London proof-of-work dev chain: chain ID 1337, network ID 2018, prefunded test accounts) or POS-DEV (a proof-of-stake dev chain with every fork through Osaka at genesis, blocks made through the engine API by a built-in consensus driver, the same accounts)",
    section: 'Node',
    label: '<NETWORK>',
    choices: ['dev', 'pos-dev'],
    parse: parseNetwork,
  }),
  opt({
    name: '--dev-block-period',
    type: 'int',
    field: 'devBlockPeriod',
    default: 0,
    min: 0,
    max: 3600,
    help: 'With --network=pos-dev: seconds between blocks; 0 makes a block as soon as a transaction arrives',
    section: 'Node',
    label: '<SECONDS>',
  }),
  opt({
    name: '--genesis-file',
    type: 'path',
    field: 'genesisFile',
    default: undefined,
    help: 'Genesis file (geth/Besu JSON format) of the chain to run; not together with --network',
    section: 'Node',
    label: '<FILE>',
  }),
  opt({
    name: '--network-id',
    type: 'bigint',
    field: 'networkId',
    default: 0n,
    defaultText: "the network's ID, else the genesis chain ID",
    help: 'P2P network identifier (returned by net_version)',
    section: 'Node',
    label: '<BIG INTEGER>',
  }),
  opt({
    name: '--identity',
    type: 'string',
    field: 'identity',
    default: undefined,
    help: 'Identification added to the client name (web3_clientVersion, admin_nodeInfo)',
    section: 'Node',
    label: '<STRING>',
  }),
  opt({
    name: '--logging',
    short: '-l',
    type: 'enum',
    field: 'logging',
    default: 'INFO',
    help: `Logging verbosity: ${LOG_LEVELS.join(', ')}`,
    section: 'Node',
    label: '<LOG VERBOSITY LEVEL>',
    choices: LOG_LEVELS,
  }),
  opt({
    name: '--logging-format',
    type: 'enum',
    field: 'loggingFormat',
    default: 'AUTO',
    help: 'Log line format: TEXT (readable lines), JSON (one JSON object per line), AUTO (TEXT on a terminal, else JSON)',
    section: 'Node',
    label: '<FORMAT>',
    choices: ['AUTO', 'TEXT', 'JSON'],
  }),
  opt({
    name: '--sync-mode',
    type: 'enum',
    field: 'syncMode',
    default: 'FULL',
    help: 'Synchronization mode: FULL, FAST, SNAP, CHECKPOINT',
    section: 'Node',
    label: '<SYNC MODE>',
    choices: ['FULL', 'FAST', 'SNAP', 'CHECKPOINT'],
    unavailable: { reason: 'synchronization modes other than FULL are not available yet' },
  }),
  opt({
    name: '--node-private-key-file',
    type: 'path',
    field: 'nodePrivateKeyFile',
    default: undefined,
    defaultText: '<data-path>/key',
    help: 'File holding the node private key (created if absent)',
    section: 'Node',
    label: '<PATH>',
  }),
  opt({
    name: '--revert-reason-enabled',
    type: 'boolean',
    field: 'revertReasonEnabled',
    default: false,
    help: 'Record the revert reason in transaction receipts',
    section: 'Node',
    unavailable: { reason: 'revert reasons in transaction receipts are not available yet' },
  }),
  opt({
    name: '--auto-log-bloom-caching-enabled',
    type: 'boolean',
    field: 'autoLogBloomCachingEnabled',
    default: true,
    help: 'Maintain the log bloom cache files that speed up eth_getLogs',
    section: 'Node',
  }),
  opt({
    name: '--json-pretty-print-enabled',
    type: 'boolean',
    field: 'jsonPrettyPrintEnabled',
    default: false,
    help: 'Pretty-print JSON-RPC responses',
    section: 'Node',
  }),
  opt({
    name: '--host-allowlist',
    type: 'list',
    field: 'hostAllowlist',
    default: ['localhost', '127.0.0.1'],
    help: 'Hostnames accepted in the Host header of HTTP, WebSocket and GraphQL requests; * or all for any, none for no host',
    section: 'Node',
    label: '<HOSTNAME>[,<HOSTNAME>...]',
    check: checkAllowlist,
  }),

  // --- P2P
  opt({
    name: '--p2p-enabled',
    type: 'boolean',
    field: 'p2pEnabled',
    default: true,
    help: 'Enable peer-to-peer networking',
    section: 'P2P',
  }),
  opt({
    name: '--p2p-host',
    type: 'string',
    field: 'p2pHost',
    default: undefined,
    defaultText: 'the P2P interface, or 127.0.0.1 when that is 0.0.0.0',
    help: 'Host advertised to peers in the enode URL',
    section: 'P2P',
    label: '<HOST>',
  }),
  opt({
    name: '--p2p-interface',
    type: 'string',
    field: 'p2pInterface',
    default: '127.0.0.1',
    help: 'Network interface the P2P listener and discovery bind to (0.0.0.0 for every interface; the loopback by default, so a node joins other hosts only when told to)',
    section: 'P2P',
    label: '<HOST>',
  }),
  opt({
    name: '--p2p-port',
    type: 'int',
    field: 'p2pPort',
    default: 30303,
    help: 'P2P listening port (TCP and UDP)',
    section: 'P2P',
    ...PORT,
  }),
  opt({
    name: '--discovery-enabled',
    type: 'boolean',
    field: 'discoveryEnabled',
    default: true,
    help: 'Enable peer discovery',
    section: 'P2P',
  }),
  opt({
    name: '--bootnodes',
    type: 'list',
    field: 'bootnodes',
    default: [],
    defaultText: "the network's bootnodes",
    help: 'Enode URLs of the nodes to bootstrap discovery from',
    section: 'P2P',
    label: '<ENODE>[,<ENODE>...]',
  }),
  opt({
    name: '--max-peers',
    aliases: ['--p2p-peer-upper-bound'],
    type: 'int',
    field: 'maxPeers',
    default: 25,
    help: 'Maximum number of connected peers; static nodes (static-nodes.json, admin_addPeer) do not count against it',
    section: 'P2P',
    label: '<INTEGER>',
    min: 0,
  }),
  opt({
    name: '--nat-method',
    type: 'enum',
    field: 'natMethod',
    default: 'AUTO',
    help: 'How the node finds the address it advertises: NONE (the --p2p-host) or AUTO (the same; in a Docker container, where Besu would use DOCKER, the node warns at start and still advertises the --p2p-host); UPNP and DOCKER are refused',
    section: 'P2P',
    label: '<NAT METHOD>',
    choices: ['UPNP', 'DOCKER', 'AUTO', 'NONE'],
    check: (v) =>
      v === 'UPNP' || v === 'DOCKER'
        ? `NAT method ${v} is not available in Alder (supported: NONE, AUTO)`
        : undefined,
  }),

  // --- JSON-RPC over HTTP
  opt({
    name: '--rpc-http-enabled',
    type: 'boolean',
    field: 'rpcHttpEnabled',
    default: false,
    help: 'Serve JSON-RPC over HTTP',
    section: 'JSON-RPC over HTTP',
  }),
  opt({
    name: '--rpc-http-host',
    type: 'string',
    field: 'rpcHttpHost',
    default: '127.0.0.1',
    help: 'Host the JSON-RPC HTTP server listens on',
    section: 'JSON-RPC over HTTP',
    label: '<HOST>',
  }),
  opt({
    name: '--rpc-http-port',
    type: 'int',
    field: 'rpcHttpPort',
    default: 8545,
    help: 'Port of the JSON-RPC HTTP server',
    section: 'JSON-RPC over HTTP',
    ...PORT,
  }),
  opt({
    name: '--rpc-http-api',
    aliases: ['--rpc-http-apis'],
    type: 'list',
    field: 'rpcHttpApi',
    default: ['ETH', 'NET', 'WEB3'],
    help: `API groups enabled over HTTP: ${API_GROUPS_HELP}`,
    section: 'JSON-RPC over HTTP',
    label: '<API>[,<API>...]',
    choices: RPC_API_GROUPS,
    pluginNamespaces: true,
  }),
  opt({
    name: '--rpc-http-api-methods-no-auth',
    aliases: ['--rpc-http-api-method-no-auth'],
    type: 'list',
    field: 'rpcHttpApiMethodsNoAuth',
    default: [],
    help: 'JSON-RPC methods callable over HTTP without authentication',
    section: 'JSON-RPC over HTTP',
    label: '<METHOD>[,<METHOD>...]',
  }),
  opt({
    name: '--rpc-http-cors-origins',
    type: 'list',
    field: 'rpcHttpCorsOrigins',
    default: [],
    defaultText: 'none',
    help: 'Origins allowed by CORS for JSON-RPC over HTTP; * or all for any',
    section: 'JSON-RPC over HTTP',
    label: '<ORIGIN>[,<ORIGIN>...]',
  }),
  opt({
    name: '--rpc-http-max-active-connections',
    type: 'int',
    field: 'rpcHttpMaxActiveConnections',
    default: 80,
    help: 'Maximum number of HTTP requests served at once; more wait in a queue of 10 times this, then 503',
    section: 'JSON-RPC over HTTP',
    label: '<INTEGER>',
    min: 0,
  }),
  opt({
    name: '--rpc-http-max-batch-size',
    type: 'int',
    field: 'rpcHttpMaxBatchSize',
    default: 1024,
    help: 'Maximum number of requests in one batch; -1 for no limit',
    section: 'JSON-RPC over HTTP',
    label: '<INTEGER>',
  }),
  opt({
    name: '--rpc-http-max-request-content-length',
    type: 'int',
    field: 'rpcHttpMaxRequestContentLength',
    default: 5242880,
    help: 'Maximum size of an HTTP request body, in bytes',
    section: 'JSON-RPC over HTTP',
    label: '<BYTES>',
    min: 1,
  }),
  opt({
    name: '--rpc-http-authentication-enabled',
    type: 'boolean',
    field: 'rpcHttpAuthenticationEnabled',
    default: false,
    help: 'Require authentication for JSON-RPC over HTTP',
    section: 'JSON-RPC over HTTP',
  }),
  opt({
    name: '--rpc-http-authentication-credentials-file',
    type: 'path',
    field: 'rpcHttpAuthenticationCredentialsFile',
    default: undefined,
    help: 'TOML credentials file of the HTTP users (username and password login)',
    section: 'JSON-RPC over HTTP',
    label: '<FILE>',
  }),
  opt({
    name: '--rpc-http-authentication-jwt-public-key-file',
    type: 'path',
    field: 'rpcHttpAuthenticationJwtPublicKeyFile',
    default: undefined,
    help: 'PEM public key of the external issuer of HTTP tokens',
    section: 'JSON-RPC over HTTP',
    label: '<FILE>',
  }),
  opt({
    name: '--rpc-http-authentication-jwt-algorithm',
    type: 'enum',
    field: 'rpcHttpAuthenticationJwtAlgorithm',
    default: 'RS256',
    help: `Signature algorithm of external HTTP tokens: ${JWT_ALGORITHMS.join(', ')}`,
    section: 'JSON-RPC over HTTP',
    label: '<ALGORITHM>',
    choices: JWT_ALGORITHMS,
  }),

  // --- JSON-RPC over WebSocket
  opt({
    name: '--rpc-ws-enabled',
    type: 'boolean',
    field: 'rpcWsEnabled',
    default: false,
    help: 'Serve JSON-RPC over WebSocket',
    section: 'JSON-RPC over WebSocket',
  }),
  opt({
    name: '--rpc-ws-host',
    type: 'string',
    field: 'rpcWsHost',
    default: '127.0.0.1',
    help: 'Host the WebSocket server listens on',
    section: 'JSON-RPC over WebSocket',
    label: '<HOST>',
  }),
  opt({
    name: '--rpc-ws-port',
    type: 'int',
    field: 'rpcWsPort',
    default: 8546,
    help: 'Port of the WebSocket server',
    section: 'JSON-RPC over WebSocket',
    ...PORT,
  }),
  opt({
    name: '--rpc-ws-api',
    aliases: ['--rpc-ws-apis'],
    type: 'list',
    field: 'rpcWsApi',
    default: ['ETH', 'NET', 'WEB3'],
    help: `API groups enabled over WebSocket: ${API_GROUPS_HELP}`,
    section: 'JSON-RPC over WebSocket',
    label: '<API>[,<API>...]',
    choices: RPC_API_GROUPS,
    pluginNamespaces: true,
  }),
  opt({
    name: '--rpc-ws-api-methods-no-auth',
    aliases: ['--rpc-ws-api-method-no-auth'],
    type: 'list',
    field: 'rpcWsApiMethodsNoAuth',
    default: [],
    help: 'JSON-RPC methods callable over WebSocket without authentication',
    section: 'JSON-RPC over WebSocket',
    label: '<METHOD>[,<METHOD>...]',
  }),
  opt({
    name: '--rpc-ws-max-frame-size',
    type: 'int',
    field: 'rpcWsMaxFrameSize',
    default: 1048576,
    help: 'Maximum WebSocket frame size, in bytes (a message may span up to 4 frames)',
    section: 'JSON-RPC over WebSocket',
    label: '<BYTES>',
    min: 1,
  }),
  opt({
    name: '--rpc-ws-max-active-connections',
    type: 'int',
    field: 'rpcWsMaxActiveConnections',
    default: 80,
    help: 'Maximum number of open WebSocket connections; more upgrades wait in a queue of 10 times this, then 503',
    section: 'JSON-RPC over WebSocket',
    label: '<INTEGER>',
    min: 0,
  }),
  opt({
    name: '--rpc-ws-authentication-enabled',
    type: 'boolean',
    field: 'rpcWsAuthenticationEnabled',
    default: false,
    help: 'Require authentication for JSON-RPC over WebSocket',
    section: 'JSON-RPC over WebSocket',
  }),
  opt({
    name: '--rpc-ws-authentication-credentials-file',
    type: 'path',
    field: 'rpcWsAuthenticationCredentialsFile',
    default: undefined,
    help: 'TOML credentials file of the WebSocket users (username and password login)',
    section: 'JSON-RPC over WebSocket',
    label: '<FILE>',
  }),
  opt({
    name: '--rpc-ws-authentication-jwt-public-key-file',
    type: 'path',
    field: 'rpcWsAuthenticationJwtPublicKeyFile',
    default: undefined,
    help: 'PEM public key of the external issuer of WebSocket tokens',
    section: 'JSON-RPC over WebSocket',
    label: '<FILE>',
  }),
  opt({
    name: '--rpc-ws-authentication-jwt-algorithm',
    type: 'enum',
    field: 'rpcWsAuthenticationJwtAlgorithm',
    default: 'RS256',
    help: `Signature algorithm of external WebSocket tokens: ${JWT_ALGORITHMS.join(', ')}`,
    section: 'JSON-RPC over WebSocket',
    label: '<ALGORITHM>',
    choices: JWT_ALGORITHMS,
  }),

  // --- GraphQL
  opt({
    name: '--graphql-http-enabled',
    type: 'boolean',
    field: 'graphqlHttpEnabled',
    default: false,
    help: 'Serve GraphQL over HTTP at /graphql',
    section: 'GraphQL',
  }),
  opt({
    name: '--graphql-http-host',
    type: 'string',
    field: 'graphqlHttpHost',
    default: '127.0.0.1',
    help: 'Host the GraphQL server listens on',
    section: 'GraphQL',
    label: '<HOST>',
  }),
  opt({
    name: '--graphql-http-port',
    type: 'int',
    field: 'graphqlHttpPort',
    default: 8547,
    help: 'Port of the GraphQL server',
    section: 'GraphQL',
    ...PORT,
  }),
  opt({
    name: '--graphql-http-cors-origins',
    type: 'list',
    field: 'graphqlHttpCorsOrigins',
    default: [],
    defaultText: 'none',
    help: 'Origins allowed by CORS for GraphQL; * or all for any',
    section: 'GraphQL',
    label: '<ORIGIN>[,<ORIGIN>...]',
  }),

  // --- Engine API
  opt({
    name: '--engine-rpc-enabled',
    type: 'boolean',
    field: 'engineRpcEnabled',
    default: false,
    defaultText: 'false',
    help: 'Serve the engine API used by a consensus client (on by default when the genesis configures the merge)',
    section: 'Engine API',
  }),
  opt({
    name: '--engine-rpc-port',
    aliases: ['--engine-rpc-http-port'],
    type: 'int',
    field: 'engineRpcPort',
    default: 8551,
    help: 'Port of the engine API (HTTP and WebSocket)',
    section: 'Engine API',
    ...PORT,
  }),
  opt({
    name: '--engine-jwt-secret',
    type: 'path',
    field: 'engineJwtSecret',
    default: undefined,
    defaultText: 'random secret written to <data-path>/jwt.hex',
    help: 'File holding the hex JWT secret shared with the consensus client',
    section: 'Engine API',
    label: '<FILE>',
  }),
  opt({
    name: '--engine-jwt-disabled',
    type: 'boolean',
    field: 'engineJwtDisabled',
    default: false,
    help: 'Serve the engine API without JWT authentication',
    section: 'Engine API',
  }),
  opt({
    name: '--engine-host-allowlist',
    type: 'list',
    field: 'engineHostAllowlist',
    default: ['localhost', '127.0.0.1'],
    help: 'Hostnames accepted in the Host header of engine API requests; * or all for any',
    section: 'Engine API',
    label: '<HOSTNAME>[,<HOSTNAME>...]',
    check: checkAllowlist,
  }),

  // --- Gas price and limits
  opt({
    name: '--min-gas-price',
    type: 'bigint',
    field: 'minGasPrice',
    default: 1000n,
    help: 'Minimum gas price, in wei, of transactions accepted into the pool and mined',
    section: 'Gas price and limits',
    label: '<WEI>',
  }),
  opt({
    name: '--min-priority-fee',
    type: 'bigint',
    field: 'minPriorityFee',
    default: 0n,
    help: 'Minimum priority fee per gas, in wei, of transactions mined',
    section: 'Gas price and limits',
    label: '<WEI>',
  }),
  opt({
    name: '--api-gas-price-blocks',
    type: 'int',
    field: 'apiGasPriceBlocks',
    default: 100,
    help: 'Number of recent blocks eth_gasPrice looks at',
    section: 'Gas price and limits',
    label: '<INTEGER>',
    min: 1,
  }),
  opt({
    name: '--api-gas-price-percentile',
    type: 'number',
    field: 'apiGasPricePercentile',
    default: 50,
    help: 'Percentile of recent gas prices eth_gasPrice returns',
    section: 'Gas price and limits',
    label: '<DOUBLE>',
    min: 0,
    max: 100,
  }),
  opt({
    name: '--api-gas-price-max',
    type: 'bigint',
    field: 'apiGasPriceMax',
    default: 500000000000n,
    help: 'Maximum gas price, in wei, eth_gasPrice returns',
    section: 'Gas price and limits',
    label: '<WEI>',
  }),
  opt({
    name: '--rpc-gas-cap',
    type: 'bigint',
    field: 'rpcGasCap',
    default: 50000000n,
    help: 'Gas limit of eth_call, eth_estimateGas and other simulations; 0 for no cap',
    section: 'Gas price and limits',
    label: '<GAS>',
  }),
  opt({
    name: '--rpc-max-logs-range',
    type: 'int',
    field: 'rpcMaxLogsRange',
    default: 5000,
    help: 'Maximum number of blocks one eth_getLogs query may span; 0 for no limit',
    section: 'Gas price and limits',
    label: '<INTEGER>',
    min: 0,
  }),
  opt({
    name: '--rpc-max-trace-filter-range',
    type: 'int',
    field: 'rpcMaxTraceFilterRange',
    default: 1000,
    help: 'Maximum number of blocks one trace_filter query may span (toBlock - fromBlock); 0 for no limit',
    section: 'Gas price and limits',
    label: '<INTEGER>',
    min: 0,
  }),
  opt({
    name: '--rpc-tx-feecap',
    type: 'bigint',
    field: 'rpcTxFeecap',
    default: 1000000000000000000n,
    help: 'Maximum fee, in wei, of a transaction sent through JSON-RPC; 0 for no cap',
    section: 'Gas price and limits',
    label: '<WEI>',
  }),

  // --- Mining
  opt({
    name: '--miner-enabled',
    type: 'boolean',
    field: 'minerEnabled',
    default: false,
    help: 'Mine blocks (proof of work); requires --miner-coinbase',
    section: 'Mining',
  }),
  opt({
    name: '--miner-coinbase',
    type: 'address',
    field: 'minerCoinbase',
    default: undefined,
    help: 'Account that receives mining rewards and fees',
    section: 'Mining',
    label: '<ADDRESS>',
  }),
  opt({
    name: '--miner-extra-data',
    type: 'bytes',
    field: 'minerExtraData',
    default: new Uint8Array(),
    defaultText: '0x',
    help: 'Hex data of at most 32 bytes written into the extraData field of mined blocks',
    section: 'Mining',
    label: '<HEX>',
    maxBytes: 32,
  }),
  opt({
    name: '--target-gas-limit',
    type: 'bigint',
    field: 'targetGasLimit',
    default: undefined,
    defaultText: "the parent block's gas limit",
    help: 'Gas limit that mined blocks move towards',
    section: 'Mining',
    label: '<GAS>',
  }),
  opt({
    name: '--poa-block-txs-selection-max-time',
    type: 'int',
    field: 'poaBlockTxsSelectionMaxTime',
    default: 75,
    help: 'Time a Clique, IBFT 2.0 or QBFT block may spend selecting transactions, as a percentage of the block period (1 to 100); the block goes out with those selected so far. Refused on other networks',
    section: 'Mining',
    label: '<PERCENTAGE>',
    min: 1,
    max: 100,
  }),

  // --- Transaction pool
  opt({
    name: '--tx-pool',
    type: 'enum',
    field: 'txPool',
    default: 'LAYERED',
    help: 'Transaction pool implementation: LAYERED, SEQUENCED',
    section: 'Transaction pool',
    label: '<TYPE>',
    choices: ['LAYERED', 'SEQUENCED'],
    unavailable: { reason: 'the SEQUENCED transaction pool is not available yet' },
  }),
  opt({
    name: '--tx-pool-max-size',
    type: 'int',
    field: 'txPoolMaxSize',
    default: 4096,
    help: 'Maximum number of transactions in the pool',
    section: 'Transaction pool',
    label: '<INTEGER>',
    min: 1,
  }),
  opt({
    name: '--tx-pool-price-bump',
    type: 'int',
    field: 'txPoolPriceBump',
    default: 10,
    help: 'Percentage by which a replacement transaction must raise the price',
    section: 'Transaction pool',
    label: '<PERCENT>',
    min: 0,
    max: 100,
  }),
  opt({
    name: '--tx-pool-max-future-by-sender',
    type: 'int',
    field: 'txPoolMaxFutureBySender',
    default: 200,
    help: 'Maximum number of future-nonce transactions kept per sender',
    section: 'Transaction pool',
    label: '<INTEGER>',
    min: 1,
  }),
  opt({
    name: '--tx-pool-retention-hours',
    type: 'int',
    field: 'txPoolRetentionHours',
    default: 13,
    help: 'Hours a transaction may wait in the pool',
    section: 'Transaction pool',
    label: '<INTEGER>',
    min: 1,
  }),
  opt({
    name: '--tx-pool-no-local-priority',
    type: 'boolean',
    field: 'txPoolNoLocalPriority',
    default: false,
    help: 'Treat transactions sent through JSON-RPC like any other (by default they may pay less than --min-gas-price while mining)',
    section: 'Transaction pool',
  }),
  opt({
    name: '--strict-tx-replay-protection-enabled',
    type: 'boolean',
    field: 'strictTxReplayProtectionEnabled',
    default: false,
    help: 'Refuse transactions sent through JSON-RPC without a chain ID',
    section: 'Transaction pool',
  }),

  // --- Privacy
  opt({
    name: '--privacy-enabled',
    type: 'boolean',
    field: 'privacyEnabled',
    default: false,
    help: 'Enable private transactions (EEA and PRIV API groups)',
    section: 'Privacy',
    unavailable: PRIVACY,
  }),
  opt({
    name: '--privacy-url',
    type: 'string',
    field: 'privacyUrl',
    default: 'http://localhost:8888',
    help: 'URL of the private transaction manager',
    section: 'Privacy',
    label: '<URL>',
    unavailable: PRIVACY,
  }),
  opt({
    name: '--privacy-public-key-file',
    type: 'path',
    field: 'privacyPublicKeyFile',
    default: undefined,
    help: "File holding the private transaction manager's public key of this node",
    section: 'Privacy',
    label: '<FILE>',
    unavailable: PRIVACY,
  }),
  opt({
    name: '--privacy-multi-tenancy-enabled',
    type: 'boolean',
    field: 'privacyMultiTenancyEnabled',
    default: false,
    help: 'Serve several privacy tenants identified by their tokens',
    section: 'Privacy',
    unavailable: PRIVACY,
  }),
  opt({
    name: '--privacy-marker-transaction-signing-key-file',
    type: 'path',
    field: 'privacyMarkerTransactionSigningKeyFile',
    default: undefined,
    help: 'Key that signs privacy marker transactions (random key per transaction if absent)',
    section: 'Privacy',
    label: '<FILE>',
    unavailable: PRIVACY,
  }),
  opt({
    name: '--privacy-flexible-groups-enabled',
    aliases: ['--privacy-onchain-groups-enabled'],
    type: 'boolean',
    field: 'privacyFlexibleGroupsEnabled',
    default: false,
    help: 'Enable flexible (on-chain) privacy groups',
    section: 'Privacy',
    unavailable: PRIVACY,
  }),
  opt({
    name: '--privacy-nonce-always-increments',
    type: 'boolean',
    field: 'privacyNonceAlwaysIncrements',
    default: false,
    help: 'Increment the private nonce even when a private transaction fails',
    section: 'Privacy',
    unavailable: PRIVACY,
  }),

  // --- Metrics and plugins
  opt({
    name: '--metrics-enabled',
    type: 'boolean',
    field: 'metricsEnabled',
    default: false,
    help: 'Serve Prometheus metrics',
    section: 'Metrics and plugins',
  }),
  opt({
    name: '--metrics-host',
    type: 'string',
    field: 'metricsHost',
    default: '127.0.0.1',
    help: 'Host the metrics server listens on',
    section: 'Metrics and plugins',
    label: '<HOST>',
  }),
  opt({
    name: '--metrics-port',
    type: 'int',
    field: 'metricsPort',
    default: 9545,
    help: 'Port of the metrics server',
    section: 'Metrics and plugins',
    ...PORT,
  }),
  opt({
    name: '--metrics-category',
    aliases: ['--metrics-categories'],
    type: 'list',
    field: 'metricsCategory',
    default: [...METRIC_CATEGORIES],
    defaultText: 'all',
    help: `Categories of metrics to collect (${METRIC_CATEGORIES.join(', ')})`,
    section: 'Metrics and plugins',
    label: '<CATEGORY>[,<CATEGORY>...]',
    choices: METRIC_CATEGORIES,
  }),
  opt({
    name: '--metrics-protocol',
    type: 'enum',
    field: 'metricsProtocol',
    default: 'PROMETHEUS',
    help: 'Metrics protocol: PROMETHEUS (OPENTELEMETRY is not available in Alder)',
    section: 'Metrics and plugins',
    label: '<PROTOCOL>',
    choices: ['PROMETHEUS'],
    parse: parseMetricsProtocol,
  }),
  opt({
    name: '--metrics-push-enabled',
    type: 'boolean',
    field: 'metricsPushEnabled',
    default: false,
    help: 'Push metrics to a Prometheus Pushgateway (not together with --metrics-enabled)',
    section: 'Metrics and plugins',
  }),
  opt({
    name: '--metrics-push-host',
    type: 'string',
    field: 'metricsPushHost',
    default: '127.0.0.1',
    help: 'Host of the Prometheus Pushgateway',
    section: 'Metrics and plugins',
    label: '<HOST>',
  }),
  opt({
    name: '--metrics-push-port',
    type: 'int',
    field: 'metricsPushPort',
    default: 9001,
    help: 'Port of the Prometheus Pushgateway',
    section: 'Metrics and plugins',
    ...PORT,
  }),
  opt({
    name: '--metrics-push-interval',
    type: 'int',
    field: 'metricsPushInterval',
    default: 15,
    help: 'Seconds between two pushes to the Pushgateway',
    section: 'Metrics and plugins',
    label: '<INTEGER>',
    min: 1,
  }),
  opt({
    name: '--metrics-push-prometheus-job',
    type: 'string',
    field: 'metricsPushPrometheusJob',
    default: 'alder-client',
    help: 'Job name under which metrics are pushed',
    section: 'Metrics and plugins',
    label: '<STRING>',
  }),
  opt({
    name: '--plugins',
    type: 'list',
    field: 'plugins',
    default: undefined,
    defaultText: 'every plugin found',
    help: 'Names of the plugins to load',
    section: 'Metrics and plugins',
    label: '<NAME>[,<NAME>...]',
  }),
  opt({
    name: '--plugin-continue-on-error',
    type: 'boolean',
    field: 'pluginContinueOnError',
    default: false,
    help: 'Keep starting when a plugin fails to load',
    section: 'Metrics and plugins',
  }),
];

// ---------------------------------------------------------------------------------------------------
// Derived names

/** `--rpc-http-port` → `ALDER_RPC_HTTP_PORT`. */
export function envVarName(longName: string): string {
  return `ALDER_${longName.replace(/^--/, '').toUpperCase().replace(/-/g, '_')}`;
}

/** `--rpc-http-port` → `rpc-http-port`. */
export function tomlKey(longName: string): string {
  return longName.replace(/^--/, '');
}

/** `--rpc-http-port` → `rpcHttpPort` (commander's attribute name). */
export function attributeName(longName: string): string {
  return longName.replace(/^--/, '').replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function optionByName(name: string): OptionSpec | undefined {
  return OPTIONS.find((o) => o.name === name || o.aliases?.includes(name as `--${string}`));
}

// ---------------------------------------------------------------------------------------------------
// Values

export type RawValue = string | number | bigint | boolean | unknown[];

export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Converts one raw value (command-line or environment text, or a TOML value) to the option's typed
 * value. Throws `OptionValueError` with the detail of the problem.
 */
export function convertValue(spec: OptionSpec, raw: RawValue, fromToml = false): unknown {
  const shown = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : `'${String(v)}'`);
  let value: unknown;
  switch (spec.type) {
    case 'boolean': {
      if (typeof raw === 'boolean') value = raw;
      else if (fromToml)
        throw new OptionValueError(`${shown(raw)} is not a boolean (use true or false without quotes)`);
      else if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim()))
        value = raw.trim().toLowerCase() === 'true';
      else throw new OptionValueError(`${shown(raw)} is not a boolean`);
      break;
    }
    case 'int': {
      const text = scalarText(raw);
      if (text === undefined || !/^-?[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
        throw new OptionValueError(`${shown(raw)} is not an int`);
      }
      value = Number(text);
      break;
    }
    case 'number': {
      const text = scalarText(raw);
      const n = text === undefined || text === '' ? Number.NaN : Number(text);
      if (!Number.isFinite(n)) throw new OptionValueError(`${shown(raw)} is not a number`);
      value = n;
      break;
    }
    case 'bigint': {
      const text = scalarText(raw);
      if (text === undefined || !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(text)) {
        throw new OptionValueError(`${shown(raw)} is not a non-negative integer`);
      }
      value = BigInt(text);
      break;
    }
    case 'list': {
      let items: string[];
      if (Array.isArray(raw)) items = raw.flatMap((v) => splitList(String(v)));
      else if (typeof raw === 'string') items = splitList(raw);
      else throw new OptionValueError(`${shown(raw)} is not a list`);
      if (spec.choices !== undefined) {
        const invalid = items.filter(
          (i) => !spec.choices?.includes(i) && !(spec.pluginNamespaces && PLUGIN_NAMESPACE.test(i)),
        );
        if (invalid.length > 0) throw new OptionValueError(`invalid entries found [${invalid.join(', ')}]`);
      }
      value = items;
      break;
    }
    case 'enum': {
      if (typeof raw !== 'string') throw new OptionValueError(`${shown(raw)} is not a string`);
      if (spec.parse !== undefined) {
        value = spec.parse(raw);
        break;
      }
      const found = spec.choices?.find((c) => c.toLowerCase() === raw.trim().toLowerCase());
      if (found === undefined) {
        throw new OptionValueError(
          `expected one of [${(spec.choices ?? []).map((c) => c.toUpperCase()).join(', ')}] (case-insensitive) but was '${raw}'`,
        );
      }
      value = found;
      break;
    }
    case 'bytes': {
      const text = scalarText(raw);
      const body = text?.replace(/^0x/i, '');
      if (body === undefined || !/^([0-9a-fA-F]{2})*$/.test(body))
        throw new OptionValueError(`${shown(raw)} is not hex data`);
      const bytes = new Uint8Array(Buffer.from(body, 'hex'));
      if (spec.maxBytes !== undefined && bytes.length > spec.maxBytes) {
        throw new OptionValueError(`${shown(raw)} is longer than ${spec.maxBytes} bytes`);
      }
      value = bytes;
      break;
    }
    case 'address': {
      const text = scalarText(raw);
      if (text === undefined || !/^0x[0-9a-fA-F]{40}$/.test(text)) {
        throw new OptionValueError(
          `${shown(raw)} is not a 20-byte hex address (0x followed by 40 hex digits)`,
        );
      }
      value = text.toLowerCase();
      break;
    }
    default: {
      if (typeof raw !== 'string') throw new OptionValueError(`${shown(raw)} is not a string`);
      value = spec.parse !== undefined ? spec.parse(raw) : raw;
    }
  }
  if (typeof value === 'number') {
    if (spec.min !== undefined && value < spec.min) throw new OptionValueError(rangeProblem(spec, raw));
    if (spec.max !== undefined && value > spec.max) throw new OptionValueError(rangeProblem(spec, raw));
  }
  const problem = spec.check?.(value);
  if (problem !== undefined) throw new OptionValueError(problem);
  return value;
}

/**
 * Why the node refuses this (converted) value of an option that is not available yet; undefined when
 * the value is accepted: the default, or a value that asks for nothing absent.
 */
export function unavailableReason(spec: OptionSpec, value: unknown): string | undefined {
  const u = spec.unavailable;
  if (u === undefined || u.alsoAccepts === 'any') return undefined;
  if (sameValue(value, spec.default)) return undefined;
  if (u.alsoAccepts?.some((accepted) => sameValue(value, accepted))) return undefined;
  return u.reason;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b));
  return a === b;
}

function rangeProblem(spec: OptionSpec, raw: RawValue): string {
  if (spec.label === '<PORT>') return `'${String(raw)}' is not a valid port number (0 to 65535)`;
  if (spec.max === undefined) return `'${String(raw)}' is below the minimum of ${spec.min}`;
  return `'${String(raw)}' is not between ${spec.min ?? '-∞'} and ${spec.max}`;
}

function scalarText(raw: RawValue): string | undefined {
  if (typeof raw === 'string') return raw.trim();
  if (typeof raw === 'number' || typeof raw === 'bigint') return String(raw);
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// Command line

/** Long names of boolean options, for `normalizeBooleanFlags`. */
export function booleanFlagNames(): string[] {
  return OPTIONS.filter((o) => o.type === 'boolean').flatMap((o) => [o.name, ...(o.aliases ?? [])]);
}

/**
 * Boolean options take `--flag`, `--flag=true|false` and `--flag true|false`. Rewriting every use to
 * `--flag=<value>` before commander parses keeps a following argument that is not a boolean (a
 * subcommand, another option) from being read as the flag's value.
 */
export function normalizeBooleanFlags(argv: readonly string[], names: Iterable<string>): string[] {
  const flags = new Set(names);
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i] as string;
    if (tok === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (flags.has(tok)) {
      const next = argv[i + 1];
      if (next !== undefined && /^(true|false)$/i.test(next)) {
        out.push(`${tok}=${next}`);
        i++;
      } else {
        out.push(`${tok}=true`);
      }
    } else {
      out.push(tok);
    }
  }
  return out;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Declares every option of the table on a commander command (aliases hidden from the help). */
export function addOptionsTo(cmd: Command): Command {
  for (const spec of OPTIONS) {
    const value = spec.type === 'boolean' ? '[BOOLEAN]' : (spec.label ?? '<VALUE>');
    const names = spec.short !== undefined ? `${spec.short}, ${spec.name}` : spec.name;
    const main = new Option(`${names} ${value}`, helpText(spec));
    if (spec.type === 'list') main.argParser(collect);
    cmd.addOption(main);
    for (const alias of spec.aliases ?? []) {
      const o = new Option(`${alias} ${value}`).hideHelp();
      if (spec.type === 'list') o.argParser(collect);
      cmd.addOption(o);
    }
  }
  return cmd;
}

/** The raw command-line values commander collected, keyed by canonical option name. */
export function commandLineValues(opts: Record<string, unknown>): Map<string, RawValue> {
  const out = new Map<string, RawValue>();
  for (const spec of OPTIONS) {
    const values: unknown[] = [];
    for (const n of [spec.name, ...(spec.aliases ?? [])]) {
      const v = opts[attributeName(n)];
      if (v !== undefined) values.push(v);
    }
    if (values.length === 0) continue;
    if (spec.type === 'list') out.set(spec.name, values.flat() as string[]);
    else out.set(spec.name, values[values.length - 1] as RawValue);
  }
  return out;
}

function defaultText(spec: OptionSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  const d: unknown = spec.default;
  if (d === undefined) return 'none';
  if (Array.isArray(d)) return d.length === 0 ? 'none' : d.join(',');
  if (d instanceof Uint8Array) return `0x${Buffer.from(d).toString('hex')}`;
  return String(d);
}

function helpText(spec: OptionSpec): string {
  const note = unavailableNote(spec);
  return `${spec.help} (default: ${defaultText(spec)})${note === undefined ? '' : `. ${note}`}`;
}

/** What the help and the README say about an option that is not available yet. */
function unavailableNote(spec: OptionSpec): string | undefined {
  const u = spec.unavailable;
  if (u === undefined) return undefined;
  if (u.alsoAccepts === 'any') return `Accepted without effect: ${u.reason}.`;
  const others = (u.alsoAccepts ?? []).map((v) => (Array.isArray(v) && v.length === 0 ? 'empty' : String(v)));
  const accepted = ['the default', ...others].join(' or ');
  return `Refused at start unless ${accepted}: ${u.reason}.`;
}

// ---------------------------------------------------------------------------------------------------
// README

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function codeCell(text: string): string {
  return `\`${text.replace(/\|/g, '\\|')}\``;
}

function note(spec: OptionSpec): string {
  const text = unavailableNote(spec);
  return text === undefined ? '' : `. *${escapeCell(text)}*`;
}

/** The README's option reference: one table per section. */
export function renderOptionsMarkdown(): string {
  const lines: string[] = [];
  lines.push(
    'Every option can also be set in the TOML file given with `--config-file` (key = option name without',
    'the leading `--`, e.g. `rpc-http-port=8545`; lists as arrays) or through an environment variable',
    '(`ALDER_` + the name in upper snake case, e.g. `ALDER_RPC_HTTP_PORT`). Precedence: command line,',
    'then environment, then config file, then default. Booleans accept `--flag`, `--flag=true` and',
    '`--flag=false`; lists are comma-separated.',
    '',
    'An option does what its description says, or the node refuses it at start and names it with the',
    'reason (`--sync-mode: synchronization modes other than FULL are not available yet`), before it touches the data',
    'directory. A description that ends in italics marks an option that is not available yet: its',
    'default is always accepted, and so is a value that only turns off what is absent',
    '(`--p2p-enabled=false`, `--nat-method=NONE`).',
    '',
  );
  const sections = [...new Set(OPTIONS.map((o) => o.section))];
  for (const section of sections) {
    lines.push(
      `### ${section}`,
      '',
      '| Option | Environment variable | Default | Description |',
      '|---|---|---|---|',
    );
    for (const spec of OPTIONS.filter((o) => o.section === section)) {
      const value = spec.type === 'boolean' ? '' : `=${spec.label ?? '<VALUE>'}`;
      const others = [spec.short, ...(spec.aliases ?? [])].filter((n) => n !== undefined);
      const option =
        codeCell(`${spec.name}${value}`) + (others.length > 0 ? ` (${others.map(codeCell).join(', ')})` : '');
      lines.push(
        `| ${option} | ${codeCell(envVarName(spec.name))} | ${escapeCell(defaultText(spec))} | ${escapeCell(spec.help)}${note(spec)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** A command with every option of the table, for parsing node options alone. */
export function newOptionsCommand(name = 'alder'): Command {
  return addOptionsTo(new Command(name));
}
