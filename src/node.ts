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
import { chainSubscriptionSource } from './events/chainSource.js';
import { FilterManager } from './filters/manager.js';
import { logger, setLogLevel } from './log.js';
import { BlockBuilder } from './mining/builder.js';
import { BlockProducer } from './mining/producer.js';
import { MiningService } from './mining/service.js';
import { createAuth } from './rpc/auth/index.js';
import { createDispatcher } from './rpc/dispatch.js';
import { blockAnswerOf } from './rpc/methods/eth/blocks.js';
import { allMethods } from './rpc/methods/index.js';
import { startHttpServer } from './rpc/server/http.js';
import { startWsServer } from './rpc/server/ws.js';
import type { Services } from './rpc/services.js';
import { SubscriptionManager } from './rpc/subscriptions/manager.js';
import { subscriptionMethods } from './rpc/subscriptions/methods.js';
import { TrieStore } from './state/trieStore.js';
import { type GenesisAccount, WorldState } from './state/worldState.js';
import { TxPool } from './txpool/pool.js';
import { VERSION } from './version.js';

export interface RunningNode {
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
}

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

export async function startNode(config: Config): Promise<RunningNode> {
  setLogLevel(config.logging);
  const log = logger('node');
  const ctx = await openChain(config);
  const services: Services = {
    config,
    common: ctx.common,
    chain: ctx.chain,
    world: ctx.world,
    importer: ctx.importer,
    clientVersion: clientVersion(config),
    networkId: config.networkId,
    peerCount: () => 0,
  };
  services.txPool = new TxPool(ctx.chain, ctx.world, ctx.common, {
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
  services.filters = new FilterManager(ctx.chain, services.txPool);
  // Besu keeps its node key in the data directory, creating it on first start.
  const nodeKey = loadOrCreateNodeKey(config.nodePrivateKeyFile ?? join(config.dataPath, 'key'));
  services.clique = ctx.clique;
  if (config.genesis.config.consensus === 'ethash') {
    services.miner = createEthashMiner(config, ctx, services.txPool);
  }
  // A Clique node seals whenever its key is a signer, without --miner-enabled (as Besu).
  const sealer = ctx.clique
    ? createCliqueSealer(config, ctx, ctx.clique, services.txPool, nodeKey)
    : undefined;
  const head = ctx.chain.head();
  log.info({ number: head.number.toString(), hash: bytesToHex(head.hash) }, 'Chain head');
  const closers: Array<() => Promise<void>> = [];
  try {
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
        methods: allMethods,
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
      log.info(`JSON-RPC HTTP service started on ${config.rpcHttpHost}:${http.port}`);
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
        methods: allMethods,
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
      log.info(`JSON-RPC WebSocket service started on ${config.rpcWsHost}:${ws.port}`);
      closers.push(async () => {
        await ws.close();
        subscriptions.close();
      });
    }
  } catch (err) {
    for (const close of closers.reverse()) await close();
    await ctx.db.close();
    throw err;
  }
  if (config.minerEnabled) services.miner?.start();
  sealer?.start();
  return {
    async stop() {
      await services.miner?.stop();
      await sealer?.stop();
      for (const close of closers.reverse()) await close();
      await ctx.importer.idle();
      await ctx.db.close();
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
  setLogLevel(config.logging);
  const log = logger('import');
  const ctx = await openChain(config, { skipPowValidation: opts.skipPowValidation });
  let imported = 0;
  let skipped = 0;
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
        opts.onProgress?.(imported + skipped, undefined, block.header.number);
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
    function* blocks() {
      for (let n = opts.from; n <= to; n++) {
        const hash = chain.canonicalHash(n);
        const raw = hash && chain.getRawBlock(hash);
        if (!raw) throw new Error(`block ${n} is missing from the database`);
        yield raw;
      }
    }
    return writeBlockFile(opts.file, blocks());
  } finally {
    await ctx.db.close();
  }
}
