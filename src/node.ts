/**
 * Composition root: builds every service from one Config and wires them together.
 * The CLI calls the three entry points at the bottom; nothing else knows every service.
 */
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { createBlockFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { bytesToHex, createAddressFromString } from '@ethereumjs/util';
import { ChainStore } from './chain/chainStore.js';
import { InvalidBlockError, UnknownParentError } from './chain/errors.js';
import { FeeOracle } from './chain/fees.js';
import { initGenesis } from './chain/genesis.js';
import { BlockImporter } from './chain/importer.js';
import { readBlockFile, writeBlockFile } from './chain/rlpFile.js';
import { createCommon, genesisHeaderFields } from './config/genesis.js';
import type { Config } from './config/types.js';
import { Clique, cliqueExecutionCommon } from './consensus/clique/index.js';
import { EthashCaches } from './consensus/ethash/caches.js';
import { EthashEngine } from './consensus/ethash/engine.js';
import { createSealVerifier } from './consensus/ethash/seal.js';
import { customCrypto, getKzg } from './crypto/index.js';
import { loadOrCreateNodeKey } from './crypto/nodeKey.js';
import { Database } from './db/database.js';
import { BlockSimulator } from './execution/blockSimulator.js';
import { CallSimulator } from './execution/simulator.js';
import { BLOCKS_PER_SEGMENT, LogBloomCache } from './filters/bloomCache.js';
import { FilterManager, type FilterManagerOptions } from './filters/manager.js';
import { startGraphQLServer } from './graphql/server.js';
import { logger, setLogFormat, setLogLevel } from './log.js';
import { startMetrics } from './metrics/index.js';
import { BlockBuilder } from './mining/builder.js';
import { BlockProducer } from './mining/producer.js';
import { MiningService } from './mining/service.js';
import { PluginService } from './plugins/service.js';
import { createAuth } from './rpc/auth/index.js';
import { createRpcCaches } from './rpc/caches.js';
import { createDispatcher } from './rpc/dispatch.js';
import { blockAnswerOf } from './rpc/methods/eth/blocks.js';
import { allMethods } from './rpc/methods/index.js';
import { pluginRpcMethods } from './rpc/methods/plugins/index.js';
import { startHttpServer } from './rpc/server/http.js';
import { startWsServer } from './rpc/server/ws.js';
import type { Services } from './rpc/services.js';
import { chainSubscriptionSource } from './rpc/subscriptions/chainSource.js';
import { SubscriptionManager } from './rpc/subscriptions/manager.js';
import { subscriptionMethods } from './rpc/subscriptions/methods.js';
import { TrieStore } from './state/trieStore.js';
import { type GenesisAccount, WorldState } from './state/worldState.js';
import { TxPool } from './txpool/pool.js';
import { VERSION } from './version.js';

export interface RunningNode {
  /** The one backend every server answers from. */
  readonly services: Services;
  /** The ports the servers listen on (0 when a server is off). */
  readonly ports: { http: number; ws: number };
  /** Stops servers and closes the database; resolves when everything is closed. */
  stop(): Promise<void>;
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
  clique?: Clique;
  ethashCaches: EthashCaches;
}

/** Opens the data directory, writing or checking the genesis block. */
export async function openChain(
  config: Config,
  opts: { skipPowValidation?: boolean } = {},
): Promise<ChainContext> {
  const common = createCommon(config.genesis, { customCrypto: customCrypto() });
  // Chains that reach Cancun carry blobs: load the KZG trusted setup now (a few seconds) rather than
  // in the middle of the first blob block. Other chains never load it.
  if (config.genesis.config.forks.cancun !== undefined) getKzg();
  const db = Database.open(join(config.dataPath, 'database'));
  try {
    const world = new WorldState(new TrieStore(db), common);
    const chain = new ChainStore(db, common);
    const alloc = new Map<string, GenesisAccount>();
    for (const [address, acc] of config.genesis.alloc) alloc.set(address, acc);
    await initGenesis(chain, world, { header: genesisHeaderFields(config.genesis), alloc });
    const ethash = config.genesis.config.ethash;
    const cliqueSpec = config.genesis.config.clique;
    const clique = cliqueSpec ? new Clique(chain, cliqueSpec) : undefined;
    // A Clique genesis must list its signers; refuse to start on one that does not.
    const genesisHeader = chain.getHeaderByNumber(0n);
    if (clique && genesisHeader) clique.signersAfter(genesisHeader);
    const ethashCaches = new EthashCaches(join(config.dataPath, 'ethash'));
    const importer = new BlockImporter(chain, world, {
      skipPowValidation: opts.skipPowValidation ?? false,
      fixedDifficulty: ethash?.fixedDifficulty,
      consensus: clique?.rules,
      executionCommon: clique ? cliqueExecutionCommon(config.genesis, customCrypto()) : undefined,
      verifySeal: createSealVerifier(ethashCaches),
    });
    return { db, common, world, chain, importer, clique, ethashCaches };
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
  /** Clique block production when the genesis is Clique (started by `startNode`). */
  sealer?: BlockProducer;
  /** Stops block production, waits for the importer and closes the database. */
  close(): Promise<void>;
}

/**
 * The composition root's core: opens the chain and builds every service the adapters answer from
 * (pool, filters, fee oracle, simulators, the JSON-RPC caches, block production). `startNode` puts
 * servers in front of it; tests build the node's stack with it too.
 */
export async function createBackend(config: Config, opts: BackendOptions = {}): Promise<Backend> {
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
    const clique = ctx.clique;
    const services: Services = {
      config,
      common: ctx.common,
      chain: ctx.chain,
      world: ctx.world,
      importer: ctx.importer,
      clientVersion: opts.clientVersion ?? clientVersion(config),
      networkId: config.networkId,
      peerCount: () => 0,
      fees: new FeeOracle(ctx.chain, {
        gasPriceBlocks: config.apiGasPriceBlocks,
        gasPricePercentile: config.apiGasPricePercentile,
        gasPriceMax: config.apiGasPriceMax,
        minGasPrice: config.minGasPrice,
        minPriorityFee: config.minPriorityFee,
      }),
      callSimulator: new CallSimulator(
        ctx.chain,
        ctx.world,
        config.rpcGasCap,
        clique ? (header) => createAddressFromString(clique.proposerOf(header)) : undefined,
      ),
      blockSimulator: new BlockSimulator(
        ctx.chain,
        ctx.world,
        config.rpcGasCap,
        clique ? cliqueExecutionCommon(config.genesis, customCrypto()) : undefined,
      ),
      ...createRpcCaches(config),
      txPool,
      filters: new FilterManager(ctx.chain, txPool, opts.filters),
      clique,
    };
    const bloomCache = new LogBloomCache(ctx.chain, config.dataPath);
    bloomCache.start(config.autoLogBloomCachingEnabled);
    services.logBloomCache = bloomCache;
    // Besu keeps its node key in the data directory, creating it on first start.
    const nodeKey = loadOrCreateNodeKey(config.nodePrivateKeyFile ?? join(config.dataPath, 'key'));
    if (config.genesis.config.consensus === 'ethash') {
      services.miner = createEthashMiner(config, ctx, txPool);
    }
    // A Clique node seals whenever its key is a signer, without --miner-enabled (as Besu).
    const sealer = clique ? createCliqueSealer(config, ctx, clique, txPool, nodeKey) : undefined;
    return {
      services,
      chain: ctx,
      sealer,
      async close() {
        await services.miner?.stop();
        await sealer?.stop();
        services.filters?.close();
        await bloomCache.stop();
        await ctx.importer.idle();
        await ctx.db.close();
      },
    };
  } catch (err) {
    await ctx.db.close();
    throw err;
  }
}

export interface StartOptions {
  /** `--plugin-<name>-<option>` values taken from the command line. */
  pluginArgs?: ReadonlyMap<string, string>;
}

export async function startNode(config: Config, opts: StartOptions = {}): Promise<RunningNode> {
  setLogFormat(config.loggingFormat);
  setLogLevel(config.logging);
  const log = logger('node');
  const backend = await createBackend(config);
  const { services, sealer } = backend;
  const ctx = backend.chain;
  const head = ctx.chain.head();
  log.info({ number: head.number.toString(), hash: bytesToHex(head.hash) }, 'Chain head');
  const closers: Array<() => Promise<void>> = [];
  const endpoints: Record<string, { host: string; port: number }> = {};
  services.endpoints = endpoints;
  const ports = { http: 0, ws: 0 };
  try {
    const metrics = await startMetrics(config, {
      chain: ctx.chain,
      importer: ctx.importer,
      txPool: services.txPool,
      peerCount: services.peerCount,
      // No P2P networking yet: the node accepts no peer.
      peerLimit: () => 0,
    });
    closers.push(() => metrics.close());
    services.metrics = metrics.service;
    if (metrics.endpoint) endpoints.metrics = metrics.endpoint;
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
      env: process.env,
    });
    services.plugins = plugins;
    closers.push(() => plugins.stop());
    const methods = metrics.instrument([...allMethods, ...pluginRpcMethods(plugins.methods())]);
    if (config.rpcHttpEnabled) {
      const auth = await createAuth({
        enabled: config.rpcHttpAuthenticationEnabled,
        credentialsFile: config.rpcHttpAuthenticationCredentialsFile,
        jwtPublicKeyFile: config.rpcHttpAuthenticationJwtPublicKeyFile,
        jwtAlgorithm: config.rpcHttpAuthenticationJwtAlgorithm,
        noAuthMethods: config.rpcHttpApiMethodsNoAuth,
        transport: 'HTTP',
      });
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
      endpoints.jsonrpc = { host: config.rpcHttpHost, port: http.port };
      closers.push(() => http.close());
    }
    if (config.rpcWsEnabled) {
      const auth = await createAuth({
        enabled: config.rpcWsAuthenticationEnabled,
        credentialsFile: config.rpcWsAuthenticationCredentialsFile,
        jwtPublicKeyFile: config.rpcWsAuthenticationJwtPublicKeyFile,
        jwtAlgorithm: config.rpcWsAuthenticationJwtAlgorithm,
        noAuthMethods: config.rpcWsApiMethodsNoAuth,
        transport: 'WS',
      });
      const subscriptions = new SubscriptionManager(
        chainSubscriptionSource(
          ctx.chain,
          (block, full) => blockAnswerOf(services, block, full).json,
          services.txPool,
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
      endpoints.ws = { host: config.rpcWsHost, port: ws.port };
      closers.push(async () => {
        await ws.close();
        subscriptions.close();
      });
    }
    if (config.graphqlHttpEnabled) {
      const graphql = await startGraphQLServer({
        host: config.graphqlHttpHost,
        port: config.graphqlHttpPort,
        services,
        hostAllowlist: config.hostAllowlist,
        corsOrigins: config.graphqlHttpCorsOrigins,
        maxRequestContentLength: config.rpcHttpMaxRequestContentLength,
      });
      log.info(`GraphQL HTTP service started on ${config.graphqlHttpHost}:${graphql.port}`);
      closers.push(() => graphql.close());
    }
  } catch (err) {
    for (const close of closers.reverse()) await close();
    await backend.close();
    throw err;
  }
  try {
    await services.plugins?.start();
  } catch (err) {
    for (const close of closers.reverse()) await close();
    await backend.close();
    throw err;
  }
  if (config.minerEnabled) services.miner?.start();
  sealer?.start();
  return {
    services,
    ports,
    async stop() {
      await services.miner?.stop();
      await sealer?.stop();
      for (const close of closers.reverse()) await close();
      await backend.close();
    },
  };
}

/** Clique block production: the shared builder and producer driving the Clique engine with the node key. */
function createCliqueSealer(
  config: Config,
  ctx: ChainContext,
  clique: Clique,
  pool: TxPool,
  nodeKey: Uint8Array,
): BlockProducer {
  const engine = clique.engine(nodeKey, config.minerExtraData);
  logger('clique').info({ signer: engine.signer }, 'Clique signer address of the node key');
  const builder = new BlockBuilder(ctx.chain, ctx.importer, pool, {
    minGasPrice: () => config.minGasPrice,
    minPriorityFee: () => config.minPriorityFee,
    targetGasLimit: () => config.targetGasLimit,
  });
  return new BlockProducer(ctx.chain, ctx.importer, builder, engine, logger('clique'));
}

/** Proof-of-work block production: the shared builder and producer driving the Ethash engine. */
function createEthashMiner(config: Config, ctx: ChainContext, pool: TxPool): MiningService {
  const settings = {
    minGasPrice: config.minGasPrice,
    minPriorityFee: config.minPriorityFee,
    targetGasLimit: config.targetGasLimit,
  };
  const engine = new EthashEngine(ctx.common, ctx.ethashCaches, {
    coinbase: config.minerCoinbase ? createAddressFromString(config.minerCoinbase) : undefined,
    extraData: config.minerExtraData,
    fixedDifficulty: config.genesis.config.ethash?.fixedDifficulty,
  });
  const builder = new BlockBuilder(ctx.chain, ctx.importer, pool, {
    minGasPrice: () => settings.minGasPrice,
    minPriorityFee: () => settings.minPriorityFee,
    targetGasLimit: () => settings.targetGasLimit,
  });
  const producer = new BlockProducer(ctx.chain, ctx.importer, builder, engine, logger('miner'));
  return new MiningService(producer, engine, settings, pool);
}

export async function importBlocks(
  config: Config,
  files: string[],
  opts: ImportOptions,
): Promise<ImportSummary> {
  setLogFormat(config.loggingFormat);
  setLogLevel(config.logging);
  const log = logger('import');
  const ctx = await openChain(config, { skipPowValidation: opts.skipPowValidation });
  let imported = 0;
  let skipped = 0;
  // One cheap pass over the files gives the progress display its total (blocks are not decoded).
  let total = 0;
  if (opts.onProgress) for (const file of files) for (const _ of readBlockFile(file)) total++;
  try {
    for (const file of files) {
      for (const { rlp, offset } of readBlockFile(file)) {
        let block: ReturnType<typeof createBlockFromRLP>;
        try {
          block = createBlockFromRLP(rlp, { common: ctx.common, setHardfork: true });
        } catch (err) {
          throw new Error(
            `${file}: cannot decode the block at byte ${offset}: ${(err as Error).message.split('\n')[0]}`,
          );
        }
        let result: 'imported' | 'known';
        try {
          result = await ctx.importer.importBlock(block);
        } catch (err) {
          if (err instanceof InvalidBlockError || err instanceof UnknownParentError) {
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
      }
    }
    const head = ctx.chain.head();
    return { imported, skipped, head: { number: head.number, hash: bytesToHex(head.hash) } };
  } finally {
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
