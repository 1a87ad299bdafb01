/**
 * Composition root: builds every service from one Config and wires them together.
 * The CLI calls the three entry points at the bottom; nothing else knows every service.
 */
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import type { Block } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, createAddressFromString } from '@ethereumjs/util';
import { BlockDecoder } from './chain/blockDecoder.js';
import { ChainStore } from './chain/chainStore.js';
import { InvalidBlockError, UnknownParentError } from './chain/errors.js';
import { FeeOracle } from './chain/fees.js';
import { ForkIdService } from './chain/forkId.js';
import { initGenesis } from './chain/genesis.js';
import { checkBlockFile, readBlockFile, writeBlockFile } from './chain/rlpFile.js';
import { ConfigError } from './config/errors.js';
import { createCommon, genesisHeaderFields } from './config/genesis.js';
import { optionByName } from './config/options.js';
import { type Config, RPC_API_GROUPS } from './config/types.js';
import type { ConsensusEngine, NodeProducer } from './consensus/engine.js';
import { createConsensusEngine } from './consensus/factory.js';
import { DevConsensusDriver } from './consensus/merge/devDriver.js';
import { EngineService } from './consensus/merge/engineService.js';
import { MergeConsensus } from './consensus/merge/index.js';
import { customCrypto } from './crypto/index.js';
import { loadOrCreateNodeKey } from './crypto/nodeKey.js';
import { Database } from './db/database.js';
import { BlockSimulator } from './execution/blockSimulator.js';
import { BlockImporter } from './execution/importer.js';
import { CallSimulator } from './execution/simulator.js';
import { TraceService } from './execution/traceService.js';
import { BLOCKS_PER_SEGMENT, LogBloomCache } from './filters/bloomCache.js';
import { FilterManager, type FilterManagerOptions } from './filters/manager.js';
import { logger, setLogFormat, setLogLevel } from './log.js';
import { startMetrics } from './metrics/index.js';
import { BlockBuilder } from './mining/builder.js';
import type { NetworkService } from './p2p/network.js';
import { PluginService } from './plugins/service.js';
import { loadEngineJwtSecret } from './rpc/auth/engineJwt.js';
import { createAuth } from './rpc/auth/index.js';
import { createRpcCaches } from './rpc/caches.js';
import { createDispatcher } from './rpc/dispatch.js';
import { blockAnswerOf } from './rpc/methods/eth/blocks.js';
import { allMethods } from './rpc/methods/index.js';
import { pluginRpcMethods } from './rpc/methods/plugins/index.js';
import { startEngineServer } from './rpc/server/engine.js';
import { startHttpServer } from './rpc/server/http.js';
import { startWsServer } from './rpc/server/ws.js';
import type { Services } from './rpc/services.js';
import { chainSubscriptionSource } from './rpc/subscriptions/chainSource.js';
import { SubscriptionManager } from './rpc/subscriptions/manager.js';
import { subscriptionMethods } from './rpc/subscriptions/methods.js';
import { TrieStore } from './state/trieStore.js';
import { type GenesisAccount, WorldState } from './state/worldState.js';
import { TxPool } from './txpool/pool.js';
import { releaseStartupMemory } from './util/startupMemory.js';
import { VERSION } from './version.js';

export interface RunningNode {
  /** The one backend every server answers from. */
  readonly services: Services;
  /** The ports the servers listen on (0 when a server is off). */
  readonly ports: { http: number; ws: number; engine: number };
  /** Stops servers and closes the database; resolves when everything is closed. */
  stop(): Promise<void>;
  /** Resolves when the node cannot go on (the database cannot be written): the caller stops it. */
  readonly failure?: Promise<Error>;
}

export interface ImportOptions {
  skipPowValidation: boolean;
  /** Called after each imported block (for progress display). */
  onProgress?: (imported: number, total: number | undefined, number: bigint) => void;
}

export interface ImportSummary {
  imported: number;
  skipped: number;
  head: { number: bigint; hash: string };
}

export interface ExportOptions {
  from: bigint;
  /** Block after the last one to export (exclusive, as Besu's --end-block); absent: one block. */
  to?: bigint;
  file: string;
  /** Called as blocks are written (for progress display). */
  onProgress?: (done: number, total: number) => void;
}

export interface BloomCacheOptions {
  /** First block; a multiple of 100,000. */
  start: bigint;
  /** Last block (default: the head). */
  end?: bigint;
  onProgress?: (done: number, total: number) => void;
}

export interface BloomCacheSummary {
  from: bigint;
  to: bigint;
  segments: number;
  dir: string;
}

/** The opened data directory: database, state, chain, importer and consensus rules. */
export interface ChainContext {
  db: Database;
  common: Common;
  world: WorldState;
  chain: ChainStore;
  importer: BlockImporter;
  engine: ConsensusEngine;
}

/** Opens the data directory, writing or checking the genesis block. */
export async function openChain(
  config: Config,
  opts: { skipPowValidation?: boolean } = {},
): Promise<ChainContext> {
  const common = createCommon(config.genesis, { customCrypto: customCrypto() });
  const db = Database.open(join(config.dataPath, 'database'));
  try {
    const world = new WorldState(new TrieStore(db), common);
    const chain = new ChainStore(db, common);
    const alloc = new Map<string, GenesisAccount>();
    for (const [address, acc] of config.genesis.alloc) alloc.set(address, acc);
    await initGenesis(chain, world, { header: genesisHeaderFields(config.genesis), alloc });
    // The head's flat tables: missing in a data directory written before they existed, or left at
    // another state by a stop between a reorganisation and their rebuild.
    const headRoot = chain.headHeader().stateRoot;
    if (!world.flat.isAt(headRoot)) {
      if (world.hasState(headRoot)) {
        const log = logger('state');
        log.info('Building the flat state tables from the head state trie');
        const started = Date.now();
        let lastLine = started;
        world.flat.rebuild(headRoot, ({ accounts, slots }) => {
          const now = Date.now();
          if (now - lastLine < 5_000) return;
          lastLine = now;
          const rate = Math.round(((accounts + slots) * 1000) / (now - started));
          log.info(
            `Building the flat state tables: ${accounts} accounts, ${slots} storage slots, ${rate} entries/s`,
          );
        });
        log.info(`Built the flat state tables in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      } else {
        // A chain written without its state (blocks stored, not executed): reads go to the trie.
        logger('state').warn(
          { stateRoot: bytesToHex(headRoot) },
          'The head state is not stored; the flat state tables stay unused',
        );
      }
    }
    const engine = createConsensusEngine(config.genesis, {
      chain,
      dataPath: config.dataPath,
      customCrypto: customCrypto(),
      world,
    });
    const importer = new BlockImporter(chain, world, engine, {
      skipPowValidation: opts.skipPowValidation ?? false,
    });
    return { db, common, world, chain, importer, engine };
  } catch (err) {
    await db.close();
    throw err;
  }
}

export function clientVersion(config: Config): string {
  const id = config.identity ? `/${config.identity}` : '';
  return `alder${id}/v${VERSION}/${platform()}-${arch()}/node-${process.version}`;
}

export interface BackendOptions {
  /** Import without checking proof-of-work seals (`blocks import --skip-pow-validation-enabled`). */
  skipPowValidation?: boolean;
  /** Overrides the `web3_clientVersion` answer. */
  clientVersion?: string;
  /** Options of the poll filter manager (tests shorten its sweep). */
  filters?: FilterManagerOptions;
}

/** Every service of a node over one data directory, built once, shared by every adapter. */
export interface Backend {
  services: Services;
  chain: ChainContext;
  /** This node's block production, from the consensus engine (started by `startNode`). */
  producer?: NodeProducer;
  /** Stops block production, waits for the importer and closes the database. */
  close(): Promise<void>;
}

/**
 * The composition root's core: opens the chain and builds every service the adapters answer from
 * (pool, filters, fee oracle, simulators, the JSON-RPC caches, block production). `startNode` puts
 * servers in front of it; tests build the node's stack with it too.
 */
export async function createBackend(config: Config, opts: BackendOptions = {}): Promise<Backend> {
  // Besu keeps its node key in the data directory, creating it on first start. Read before the
  // database is opened, so a bad key file leaves the data directory untouched.
  const nodeKey = loadOrCreateNodeKey(config.nodePrivateKeyFile ?? join(config.dataPath, 'key'));
  const ctx = await openChain(config, { skipPowValidation: opts.skipPowValidation });
  try {
    const txPool = new TxPool(ctx.chain, ctx.world, ctx.common, {
      maxSize: config.txPoolMaxSize,
      priceBump: config.txPoolPriceBump,
      maxFutureBySender: config.txPoolMaxFutureBySender,
      minGasPrice: config.minGasPrice,
      txFeeCap: config.rpcTxFeecap,
      strictReplayProtection: config.strictTxReplayProtectionEnabled,
      retentionHours: config.txPoolRetentionHours,
      noLocalPriority: config.txPoolNoLocalPriority,
      miningEnabled: config.minerEnabled,
    });
    const engine = ctx.engine;
    const callSimulator = new CallSimulator(
      ctx.chain,
      ctx.world,
      config.rpcGasCap,
      engine.executionCommon ? (header) => engine.feeRecipient(header) : undefined,
    );
    const services: Services = {
      config,
      common: ctx.common,
      chain: ctx.chain,
      world: ctx.world,
      importer: ctx.importer,
      clientVersion: opts.clientVersion ?? clientVersion(config),
      networkId: config.networkId,
      peerCount: () => services.network?.peerCount ?? 0,
      syncStatus: () => services.network?.sync.status,
      endpoints: {},
      fees: new FeeOracle(ctx.chain, {
        gasPriceBlocks: config.apiGasPriceBlocks,
        gasPricePercentile: config.apiGasPricePercentile,
        gasPriceMax: config.apiGasPriceMax,
        minGasPrice: config.minGasPrice,
        minPriorityFee: config.minPriorityFee,
      }),
      callSimulator,
      traces: new TraceService(ctx.importer.processor, callSimulator, (header) =>
        engine.feeRecipient(header),
      ),
      blockSimulator: new BlockSimulator(
        ctx.chain,
        ctx.world,
        config.rpcGasCap,
        engine.executionCommon?.copy(),
      ),
      ...createRpcCaches(config),
      txPool,
      filters: new FilterManager(ctx.chain, txPool, opts.filters),
      clique: engine.apis.clique,
      bft: engine.apis.bft,
    };
    // The P2P network is built here and started by `startNode`.
    const network = config.p2pEnabled ? await createNetwork(config, ctx, txPool, nodeKey) : undefined;
    services.network = network;
    const engineService =
      engine instanceof MergeConsensus
        ? createEngineService(config, ctx, txPool, engine, network)
        : undefined;
    services.engine = engineService;
    const devDriver =
      engineService && config.network === 'pos-dev'
        ? new DevConsensusDriver({
            engine: engineService,
            chain: ctx.chain,
            pool: txPool,
            periodSeconds: config.devBlockPeriod,
            feeRecipient: config.minerCoinbase ? createAddressFromString(config.minerCoinbase) : undefined,
          })
        : undefined;
    const producer: NodeProducer | undefined =
      devDriver ??
      engine.createProducer?.({
        config,
        chain: ctx.chain,
        importer: ctx.importer,
        pool: txPool,
        nodeKey,
        // Mining and sealing pause while the node is behind its peers.
        isSyncing: () => network?.isSyncing ?? false,
        network,
      });
    services.miner = producer?.miner;
    const bloomCache = new LogBloomCache(ctx.chain, config.dataPath);
    bloomCache.start(config.autoLogBloomCachingEnabled);
    services.logBloomCache = bloomCache;
    return {
      services,
      chain: ctx,
      producer,
      async close() {
        await producer?.stop();
        services.filters?.close();
        await bloomCache.stop();
        await ctx.importer.idle();
        await engine.close();
        await ctx.db.close();
      },
    };
  } catch (err) {
    await ctx.db.close();
    throw err;
  }
}

/** The engine API's service over the node's chain, importer and pool. */
function createEngineService(
  config: Config,
  ctx: ChainContext,
  pool: TxPool,
  merge: MergeConsensus,
  network: NetworkService | undefined,
): EngineService {
  const builder = new BlockBuilder(ctx.chain, ctx.importer, pool, {
    minGasPrice: () => config.minGasPrice,
    minPriorityFee: () => config.minPriorityFee,
    targetGasLimit: () => config.targetGasLimit,
  });
  return new EngineService({
    genesis: config.genesis,
    chain: ctx.chain,
    importer: ctx.importer,
    builder,
    pool,
    extraData: () => config.minerExtraData,
    onDriven: () => merge.followEngine(),
    isSyncing: () => network?.isSyncing ?? false,
  });
}

export interface StartOptions {
  /** `--plugin-<name>-<option>` values taken from the command line. */
  pluginArgs?: ReadonlyMap<string, string>;
}

export async function startNode(config: Config, opts: StartOptions = {}): Promise<RunningNode> {
  setLogFormat(config.loggingFormat);
  setLogLevel(config.logging);
  const log = logger('node');
  checkPoaOptions(config);
  // Every file the node reads is checked before the data directory is touched: a bad key, credentials
  // or public key file stops the start with nothing written.
  const httpAuth = config.rpcHttpEnabled
    ? await createAuth({
        enabled: config.rpcHttpAuthenticationEnabled,
        credentialsFile: config.rpcHttpAuthenticationCredentialsFile,
        jwtPublicKeyFile: config.rpcHttpAuthenticationJwtPublicKeyFile,
        jwtAlgorithm: config.rpcHttpAuthenticationJwtAlgorithm,
        noAuthMethods: config.rpcHttpApiMethodsNoAuth,
        transport: 'HTTP',
      })
    : undefined;
  const wsAuth = config.rpcWsEnabled
    ? await createAuth({
        enabled: config.rpcWsAuthenticationEnabled,
        credentialsFile: config.rpcWsAuthenticationCredentialsFile,
        jwtPublicKeyFile: config.rpcWsAuthenticationJwtPublicKeyFile,
        jwtAlgorithm: config.rpcWsAuthenticationJwtAlgorithm,
        noAuthMethods: config.rpcWsApiMethodsNoAuth,
        transport: 'WS',
      })
    : undefined;
  const backend = await createBackend(config);
  const { services, producer } = backend;
  const { network } = services;
  const ctx = backend.chain;
  const head = ctx.chain.head();
  log.info({ number: head.number.toString(), hash: bytesToHex(head.hash) }, 'Chain head');
  const closers: Array<() => Promise<void>> = [];
  const ports = { http: 0, ws: 0, engine: 0 };
  try {
    if (network) {
      await network.start();
      closers.push(() => network.stop());
      services.endpoints.p2p = { host: network.host.advertisedHost, port: network.host.ports.listener };
    }
    const metrics = await startMetrics(config, {
      chain: ctx.chain,
      importer: ctx.importer,
      txPool: services.txPool,
      peerCount: services.peerCount,
      peerLimit: () => (services.network ? config.maxPeers : 0),
    });
    closers.push(() => metrics.close());
    services.metrics = metrics.service;
    if (metrics.endpoint) services.endpoints.metrics = metrics.endpoint;
    const plugins = new PluginService({
      chain: ctx.chain,
      world: ctx.world,
      txPool: services.txPool,
      blooms: services.logBloomCache,
    });
    await plugins.load({
      dataPath: config.dataPath,
      plugins: config.plugins,
      continueOnError: config.pluginContinueOnError,
      args: opts.pluginArgs ?? new Map(),
      fileArgs: config.pluginFileOptions,
      env: process.env,
    });
    checkApiLists(config, plugins);
    services.plugins = plugins;
    closers.push(() => plugins.stop());
    const methods = metrics.instrument([...allMethods, ...pluginRpcMethods(plugins.methods())]);
    // Everything is built: give back what start-up used before the first request can arrive.
    await releaseStartupMemory();
    if (httpAuth !== undefined) {
      const auth = httpAuth;
      const dispatcher = createDispatcher({
        methods,
        enabledGroups: config.rpcHttpApi,
        maxBatchSize: config.rpcHttpMaxBatchSize,
      });
      const http = await startHttpServer({
        host: config.rpcHttpHost,
        port: config.rpcHttpPort,
        dispatcher,
        services,
        maxRequestContentLength: config.rpcHttpMaxRequestContentLength,
        hostAllowlist: config.hostAllowlist,
        corsOrigins: config.rpcHttpCorsOrigins,
        maxActiveConnections: config.rpcHttpMaxActiveConnections,
        prettyJson: config.jsonPrettyPrintEnabled,
        auth: auth.enabled ? auth : undefined,
        readiness: () => true,
      });
      ports.http = http.port;
      log.info(`JSON-RPC HTTP service started on ${config.rpcHttpHost}:${http.port}`);
      services.endpoints.jsonrpc = { host: config.rpcHttpHost, port: http.port };
      closers.push(() => http.close());
    }
    if (wsAuth !== undefined) {
      const auth = wsAuth;
      const subscriptions = new SubscriptionManager(
        chainSubscriptionSource(
          ctx.chain,
          (block, full) => blockAnswerOf(services, block, full).json,
          services.txPool,
          network,
        ),
      );
      const dispatcher = createDispatcher({
        methods,
        // Besu serves the subscription methods on every WS connection, whatever --rpc-ws-api says.
        alwaysEnabled: subscriptionMethods,
        enabledGroups: config.rpcWsApi,
        maxBatchSize: 0,
      });
      const ws = await startWsServer({
        host: config.rpcWsHost,
        port: config.rpcWsPort,
        dispatcher,
        services,
        maxFrameSize: config.rpcWsMaxFrameSize,
        maxActiveConnections: config.rpcWsMaxActiveConnections,
        hostAllowlist: config.hostAllowlist,
        auth: auth.enabled ? auth : undefined,
        subscriptions,
      });
      ports.ws = ws.port;
      log.info(`JSON-RPC WebSocket service started on ${config.rpcWsHost}:${ws.port}`);
      services.endpoints.ws = { host: config.rpcWsHost, port: ws.port };
      closers.push(async () => {
        await ws.close();
        subscriptions.close();
      });
    }
    if (services.engine || config.engineRpcEnabled) {
      // Besu serves the engine port whenever the genesis configures the merge (or --engine-rpc-enabled).
      const secret = config.engineJwtDisabled
        ? undefined
        : loadEngineJwtSecret(config.engineJwtSecret, config.dataPath);
      const dispatcher = createDispatcher({ methods, enabledGroups: ['ENGINE', 'ETH'], maxBatchSize: 0 });
      const engineServer = await startEngineServer({
        host: config.rpcHttpHost,
        port: config.engineRpcPort,
        dispatcher,
        services,
        hostAllowlist: config.engineHostAllowlist,
        jwtKey: secret?.key,
        maxRequestContentLength: config.rpcHttpMaxRequestContentLength,
      });
      ports.engine = engineServer.port;
      log.info(
        secret ? { jwtSecret: secret.path } : { jwt: 'disabled' },
        `Engine API service started on ${config.rpcHttpHost}:${engineServer.port}`,
      );
      closers.push(async () => {
        await engineServer.close();
        secret?.dispose();
      });
    }
    if (config.graphqlHttpEnabled) {
      // GraphQL (graphql-js and the schema) is loaded only when its server is enabled.
      const { startGraphQLServer } = await import('./graphql/server.js');
      const graphql = await startGraphQLServer({
        host: config.graphqlHttpHost,
        port: config.graphqlHttpPort,
        services,
        hostAllowlist: config.hostAllowlist,
        corsOrigins: config.graphqlHttpCorsOrigins,
        maxRequestContentLength: config.rpcHttpMaxRequestContentLength,
      });
      log.info(`GraphQL HTTP service started on ${config.graphqlHttpHost}:${graphql.port}`);
      services.endpoints.graphQL = { host: config.graphqlHttpHost, port: graphql.port };
      closers.push(() => graphql.close());
    }
  } catch (err) {
    for (const close of closers.reverse()) await close();
    await backend.close();
    throw err;
  }
  // No space or no permission to write: stop rather than retry for ever; committed blocks stay.
  const failure = new Promise<Error>((resolve) => {
    ctx.db.onWriteFailure((err) => {
      log.fatal({ err: err.message }, 'Database write failed; stopping the node');
      resolve(err);
    });
  });
  try {
    await services.plugins?.start();
  } catch (err) {
    for (const close of closers.reverse()) await close();
    await backend.close();
    throw err;
  }
  producer?.start();
  return {
    failure,
    services,
    ports,
    async stop() {
      await producer?.stop();
      for (const close of closers.reverse()) await close();
      await backend.close();
    },
  };
}

/** --poa-block-txs-selection-max-time is a share of a PoA block period: other networks have none. */
function checkPoaOptions(config: Config): void {
  const option = optionByName('--poa-block-txs-selection-max-time');
  if (config.genesis.config.consensus === 'ethash' && config.poaBlockTxsSelectionMaxTime !== option?.default)
    throw new ConfigError(
      '--poa-block-txs-selection-max-time can only be used with PoA networks (Clique, IBFT 2.0, QBFT)',
    );
}

/**
 * Entries of --rpc-http-api / --rpc-ws-api that are not API groups must name a loaded plugin's
 * namespace (Besu checks them once its plugins have registered their methods).
 */
function checkApiLists(config: Config, plugins: PluginService): void {
  const groups: readonly string[] = RPC_API_GROUPS;
  for (const [option, list] of [
    ['--rpc-http-api', config.rpcHttpApi],
    ['--rpc-ws-api', config.rpcWsApi],
  ] as const) {
    const invalid = list.filter((api) => !groups.includes(api) && !plugins.hasNamespace(api));
    if (invalid.length > 0) {
      throw new ConfigError(
        `Invalid value for option '${option}': invalid entries found [${invalid.join(', ')}]`,
      );
    }
  }
}

/**
 * The P2P network: host, eth protocol, sync and gossip, from the P2P options and static-nodes.json.
 * Loaded on demand: a node started with --p2p-enabled=false never loads the devp2p stack.
 */
async function createNetwork(
  config: Config,
  ctx: ChainContext,
  pool: TxPool,
  nodeKey: Uint8Array,
): Promise<NetworkService> {
  const [{ NetworkService }, { parseEnode }, { readStaticNodes }, { detectNatMethod }] = await Promise.all([
    import('./p2p/network.js'),
    import('./p2p/enode.js'),
    import('./p2p/staticNodes.js'),
    import('./p2p/nat.js'),
  ]);
  const genesisHash = ctx.chain.genesisHash() as Uint8Array;
  const wildcard = config.p2pInterface === '0.0.0.0' || config.p2pInterface === '::';
  const consensus = config.genesis.config.consensus;
  // NONE and AUTO both advertise --p2p-host (or the interface): Alder has no Docker or UPnP NAT manager.
  const advertised = config.p2pHost ?? (wildcard ? '127.0.0.1' : config.p2pInterface);
  if (config.natMethod === 'AUTO' && detectNatMethod() === 'DOCKER')
    logger('network').warn(
      { advertised },
      `--nat-method=AUTO: running in Docker, but Alder has no Docker NAT support; advertising ${advertised} as with NONE (set --p2p-host to the address peers can reach)`,
    );
  return new NetworkService({
    privateKey: nodeKey,
    clientId: clientVersion(config),
    listenHost: config.p2pInterface,
    listenPort: config.p2pPort,
    advertisedHost: advertised,
    maxPeers: config.maxPeers,
    discovery: config.discoveryEnabled,
    bootnodes: config.bootnodes.map((b) => parseEnode(b)),
    staticNodes: readStaticNodes(join(config.dataPath, 'static-nodes.json')),
    common: ctx.common,
    chain: ctx.chain,
    importer: ctx.importer,
    forkIds: ForkIdService.of(genesisHash, config.genesis),
    networkId: config.networkId,
    pool,
    ethVersions: [69, 68],
    // Blocks a BFT network agrees on reach the nodes outside the validator set by NewBlock.
    propagateBlocks: ['ethash', 'clique', 'ibft2', 'qbft'].includes(consensus),
  });
}

/**
 * Blocks `blocks import` keeps queued behind the one it waits for: they execute while earlier ones are
 * written and flushed, and those that queue up at the commit thread meanwhile share one transaction.
 */
const IMPORT_AHEAD = 32;

export async function importBlocks(
  config: Config,
  files: string[],
  opts: ImportOptions,
): Promise<ImportSummary> {
  setLogFormat(config.loggingFormat);
  setLogLevel(config.logging);
  const log = logger('import');
  // A file that is not blocks is refused before the data directory is opened.
  for (const file of files) checkBlockFile(file);
  const ctx = await openChain(config, { skipPowValidation: opts.skipPowValidation });
  let imported = 0;
  let skipped = 0;
  const decoder = new BlockDecoder(ctx.common);
  // One cheap pass over the files gives the progress display its total (blocks are not decoded).
  let total = 0;
  if (opts.onProgress) for (const file of files) for (const _ of readBlockFile(file)) total++;
  // Blocks are queued ahead of the one being awaited: the next executes while the other's
  // transaction is written and flushed (see `BlockImporter.importBlock`).
  const ahead: Array<{ block: Block; result: Promise<'imported' | 'known'> }> = [];
  const settle = async (): Promise<void> => {
    const oldest = ahead.shift();
    if (oldest === undefined) return;
    const { block, result: pending } = oldest;
    let result: 'imported' | 'known';
    try {
      result = await pending;
    } catch (err) {
      if (err instanceof InvalidBlockError || err instanceof UnknownParentError) {
        await ctx.importer.idle();
        const head = ctx.chain.head();
        throw new Error(
          `${err.message}. Import stopped; the chain keeps every block before it (head ${head.number}, ${bytesToHex(head.hash)}).`,
        );
      }
      throw err;
    }
    if (result === 'imported') imported++;
    else skipped++;
    log.debug(
      { number: block.header.number.toString(), hash: bytesToHex(block.hash()), result },
      'Imported block',
    );
    // Let I/O (log output, signals) through between blocks.
    await new Promise<void>((resolve) => setImmediate(resolve));
    opts.onProgress?.(imported + skipped, total, block.header.number);
  };
  try {
    for (const file of files) {
      for (const { rlp, offset } of readBlockFile(file)) {
        let block: Block;
        try {
          block = decoder.fromRLP(rlp);
        } catch (err) {
          while (ahead.length > 0) await settle();
          throw new Error(
            `${file}: cannot decode the block at byte ${offset}: ${(err as Error).message.split('\n')[0]}`,
          );
        }
        const next = { block, result: ctx.importer.importBlock(block, undefined, { bulk: true }) };
        // Awaited by `settle`; a block after a refused one fails too and is not reported.
        next.result.catch(() => undefined);
        ahead.push(next);
        if (ahead.length > IMPORT_AHEAD) await settle();
      }
    }
    while (ahead.length > 0) await settle();
    const head = ctx.chain.head();
    return { imported, skipped, head: { number: head.number, hash: bytesToHex(head.hash) } };
  } finally {
    await ctx.importer.idle();
    await ctx.db.close();
  }
}

export async function exportBlocks(config: Config, opts: ExportOptions): Promise<number> {
  const ctx = await openChain(config);
  try {
    const head = ctx.chain.head().number;
    const last = opts.to === undefined ? opts.from : opts.to - 1n;
    const to = last > head ? head : last;
    if (opts.from < 0n || opts.from > to)
      throw new Error(`nothing to export: start block ${opts.from} is after the head (${head})`);
    const chain = ctx.chain;
    const total = Number(to - opts.from + 1n);
    function* blocks() {
      for (let n = opts.from; n <= to; n++) {
        const hash = chain.canonicalHash(n);
        const raw = hash && chain.getRawBlock(hash);
        if (!raw) throw new Error(`block ${n} is missing from the database`);
        yield raw;
        opts.onProgress?.(Number(n - opts.from + 1n), total);
      }
    }
    return writeBlockFile(opts.file, blocks());
  } finally {
    await ctx.db.close();
  }
}

/** `operator generate-log-bloom-cache`: writes the cache files of `start..end` (end: the head) offline. */
export async function generateLogBloomCache(
  config: Config,
  opts: BloomCacheOptions,
): Promise<BloomCacheSummary> {
  setLogFormat(config.loggingFormat);
  setLogLevel(config.logging);
  const ctx = await openChain(config);
  try {
    const head = ctx.chain.head().number;
    const end = opts.end === undefined || opts.end > head ? head : opts.end;
    const cache = new LogBloomCache(ctx.chain, config.dataPath, { onProgress: opts.onProgress });
    cache.start(false);
    await cache.generate(opts.start, end);
    const S = BigInt(BLOCKS_PER_SEGMENT);
    const segments = end > opts.start ? Number((end - 1n) / S - opts.start / S + 1n) : 0;
    return { from: opts.start, to: end, segments, dir: cache.dir };
  } finally {
    await ctx.db.close();
  }
}
