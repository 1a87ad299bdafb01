/**
 * The node's single typed configuration. Every field but `genesis` comes from one entry of the option
 * table in `options.ts` (field name = camelCase of the option name); `loadConfig` fills it from the
 * command line, the environment, the TOML config file and the defaults, in that order of precedence.
 */
import type { GenesisSpec } from './genesis.js';

export type NetworkName = 'dev' | 'pos-dev';
export type LogLevel = 'OFF' | 'FATAL' | 'ERROR' | 'WARN' | 'INFO' | 'DEBUG' | 'TRACE' | 'ALL';
export type SyncMode = 'FULL' | 'FAST' | 'SNAP' | 'CHECKPOINT';
export type NatMethod = 'UPNP' | 'DOCKER' | 'AUTO' | 'NONE';
export type JwtAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'ES256' | 'ES384' | 'ES512' | 'HS256';
export type TxPoolImplementation = 'LAYERED' | 'SEQUENCED';

/** JSON-RPC API groups accepted by `--rpc-http-api` / `--rpc-ws-api` (Besu's enum names, plus TESTING). */
export const RPC_API_GROUPS = [
  'ADMIN',
  'CLIQUE',
  'DEBUG',
  'EEA',
  'ENGINE',
  'ETH',
  'IBFT',
  'MINER',
  'NET',
  'PERM',
  'PLUGINS',
  'PRIV',
  'QBFT',
  'TRACE',
  'TXPOOL',
  'WEB3',
  'TESTING',
] as const;
export type RpcApiGroup = (typeof RPC_API_GROUPS)[number];
/** An entry of --rpc-http-api / --rpc-ws-api: one of the groups, or a plugin's JSON-RPC namespace. */
export type RpcApiName = RpcApiGroup | (string & {});

export interface Config {
  // --- node, network, storage
  /** TOML file the other options were partly read from (informational). */
  configFile: string | undefined;
  dataPath: string;
  /** Built-in network preset; undefined when `--genesis-file` was used. */
  network: NetworkName | undefined;
  genesisFile: string | undefined;
  /** The parsed genesis of the chosen network or genesis file. */
  genesis: GenesisSpec;
  /** `--network-id`, else the preset's id (dev: 2018), else the genesis chain id. */
  networkId: bigint;
  identity: string | undefined;
  logging: LogLevel;
  /** Log line format: TEXT on a terminal and JSON otherwise when AUTO. */
  loggingFormat: 'AUTO' | 'TEXT' | 'JSON';
  syncMode: SyncMode;
  nodePrivateKeyFile: string | undefined;
  revertReasonEnabled: boolean;
  autoLogBloomCachingEnabled: boolean;
  jsonPrettyPrintEnabled: boolean;
  hostAllowlist: string[];

  // --- p2p
  p2pEnabled: boolean;
  /** Advertised host; undefined = detect. */
  p2pHost: string | undefined;
  p2pInterface: string;
  p2pPort: number;
  discoveryEnabled: boolean;
  bootnodes: string[];
  maxPeers: number;
  natMethod: NatMethod;

  // --- JSON-RPC over HTTP
  rpcHttpEnabled: boolean;
  rpcHttpHost: string;
  rpcHttpPort: number;
  /** API groups, and plugin namespaces (checked against the loaded plugins at start). */
  rpcHttpApi: RpcApiName[];
  rpcHttpApiMethodsNoAuth: string[];
  rpcHttpCorsOrigins: string[];
  rpcHttpMaxActiveConnections: number;
  /** ≤ 0 means unlimited. */
  rpcHttpMaxBatchSize: number;
  rpcHttpMaxRequestContentLength: number;
  rpcHttpAuthenticationEnabled: boolean;
  rpcHttpAuthenticationCredentialsFile: string | undefined;
  rpcHttpAuthenticationJwtPublicKeyFile: string | undefined;
  rpcHttpAuthenticationJwtAlgorithm: JwtAlgorithm;

  // --- JSON-RPC over WebSocket
  rpcWsEnabled: boolean;
  rpcWsHost: string;
  rpcWsPort: number;
  /** As `rpcHttpApi`. */
  rpcWsApi: RpcApiName[];
  rpcWsApiMethodsNoAuth: string[];
  rpcWsMaxFrameSize: number;
  rpcWsMaxActiveConnections: number;
  rpcWsAuthenticationEnabled: boolean;
  rpcWsAuthenticationCredentialsFile: string | undefined;
  rpcWsAuthenticationJwtPublicKeyFile: string | undefined;
  rpcWsAuthenticationJwtAlgorithm: JwtAlgorithm;

  // --- GraphQL
  graphqlHttpEnabled: boolean;
  graphqlHttpHost: string;
  graphqlHttpPort: number;
  graphqlHttpCorsOrigins: string[];

  // --- Engine API
  /** As given; Besu also starts the engine port when the genesis configures the merge. */
  engineRpcEnabled: boolean;
  engineRpcPort: number;
  engineJwtSecret: string | undefined;
  engineJwtDisabled: boolean;
  engineHostAllowlist: string[];

  // --- gas price, limits of simulation and queries
  minGasPrice: bigint;
  minPriorityFee: bigint;
  apiGasPriceBlocks: number;
  apiGasPricePercentile: number;
  apiGasPriceMax: bigint;
  /** 0 = no cap. */
  rpcGasCap: bigint;
  /** 0 = no limit. */
  rpcMaxLogsRange: number;
  rpcMaxTraceFilterRange: number;
  /** 0 = no cap. */
  rpcTxFeecap: bigint;

  // --- mining
  minerEnabled: boolean;
  /** Lowercase 0x-prefixed address. */
  minerCoinbase: string | undefined;
  /** `--network=pos-dev`: seconds between blocks; 0 builds a block for each transaction. */
  devBlockPeriod: number;
  minerExtraData: Uint8Array;
  targetGasLimit: bigint | undefined;
  /** --poa-block-txs-selection-max-time: percentage of the block period selection may take (PoA). */
  poaBlockTxsSelectionMaxTime: number;

  // --- transaction pool
  txPool: TxPoolImplementation;
  txPoolMaxSize: number;
  txPoolPriceBump: number;
  txPoolMaxFutureBySender: number;
  txPoolRetentionHours: number;
  txPoolNoLocalPriority: boolean;
  strictTxReplayProtectionEnabled: boolean;

  // --- privacy
  privacyEnabled: boolean;
  privacyUrl: string;
  privacyPublicKeyFile: string | undefined;
  privacyMultiTenancyEnabled: boolean;
  privacyMarkerTransactionSigningKeyFile: string | undefined;
  privacyFlexibleGroupsEnabled: boolean;
  privacyNonceAlwaysIncrements: boolean;

  // --- metrics, plugins
  metricsEnabled: boolean;
  metricsHost: string;
  metricsPort: number;
  /** Categories collected (upper case, from METRIC_CATEGORIES). */
  metricsCategory: string[];
  metricsProtocol: 'PROMETHEUS';
  metricsPushEnabled: boolean;
  metricsPushHost: string;
  metricsPushPort: number;
  metricsPushInterval: number;
  metricsPushPrometheusJob: string;
  /** undefined = load every plugin found. */
  plugins: string[] | undefined;
  pluginContinueOnError: boolean;
  /**
   * Plugin options from the TOML config file (`plugin-<name>-<option> = value`), by `<name>-<option>`:
   * not entries of the option table (plugins declare them), checked once the plugins are loaded.
   */
  pluginFileOptions: ReadonlyMap<string, string>;
}
