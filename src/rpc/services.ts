/**
 * The backend every adapter (JSON-RPC over HTTP and WebSocket, GraphQL, engine) answers from. Built
 * once in node.ts (`createBackend`) and shared by every transport and connection: a request's own
 * facts (transport, connection, user) travel beside it in the method context, never in a copy of it.
 * Adapters never reach below these services.
 */
import type { Common } from '@ethereumjs/common';
import type { ChainStore } from '../chain/chainStore.js';
import type { FeeOracle } from '../chain/fees.js';
import type { Config } from '../config/types.js';
import type { Bft } from '../consensus/bft/service.js';
import type { Clique } from '../consensus/clique/index.js';
import type { BlockSimulator } from '../execution/blockSimulator.js';
import type { BlockImporter } from '../execution/importer.js';
import type { CallSimulator } from '../execution/simulator.js';
import type { TraceService } from '../execution/traceService.js';
import type { LogBloomCache } from '../filters/bloomCache.js';
import type { FilterManager } from '../filters/manager.js';
import type { MetricsService } from '../metrics/service.js';
import type { MiningService } from '../mining/service.js';
import type { NetworkService } from '../p2p/network.js';
import type { SyncStatus } from '../p2p/sync.js';
import type { PluginService } from '../plugins/service.js';
import type { WorldState } from '../state/worldState.js';
import type { TxPool } from '../txpool/pool.js';
import type { FormatBlockOptions } from './format/block.js';
import type { LogJsonCache } from './format/log.js';
import type { ResponseCache } from './rawJson.js';

export interface Services {
  config: Config;
  /** Common at genesis; blocks and headers carry their own hardfork-set copies. */
  common: Common;
  chain: ChainStore;
  world: WorldState;
  importer: BlockImporter;
  /** `web3_clientVersion`, e.g. `alder/v0.1.0/linux-x64/node-v20.20.2`. */
  clientVersion: string;
  networkId: bigint;
  /** Number of connected peers (0 with P2P disabled). */
  peerCount(): number;
  /** Peers, sync and the node's enode; absent with --p2p-enabled=false. */
  network?: NetworkService;
  /** The eth_syncing figures while the node is behind its best peer; undefined when in sync. */
  syncStatus(): SyncStatus | undefined;
  /** Listening addresses of the enabled services, for net_services. */
  endpoints: Partial<
    Record<'jsonrpc' | 'ws' | 'p2p' | 'metrics' | 'graphQL', { host: string; port: number }>
  >;
  /** Gas price oracle, fee history and miner rewards. */
  fees: FeeOracle;
  /** eth_call, eth_estimateGas and eth_createAccessList run here (it holds no per-call state). */
  callSimulator: CallSimulator;
  /** debug_trace* (struct logs and the geth tracers) run here. */
  traces: TraceService;
  /** eth_simulateV1 runs here. */
  blockSimulator: BlockSimulator;
  /** Serialised answers about immutable data (a block by hash), one per node for every transport. */
  responseCache: ResponseCache;
  /** Serialised logs of eth_getLogs, one per node. */
  logCache: LogJsonCache;
  /** How blocks are formatted on this chain (`totalDifficulty` only on chains that never merge). */
  blockFormat: FormatBlockOptions;
  /** The transaction pool; absent where no pool runs (methods answer `Transaction pool not enabled`). */
  txPool?: TxPool;
  /** Poll filters (eth_newFilter …). */
  filters?: FilterManager;
  /** Clique signers, votes and proposals; present only on Clique chains. */
  clique?: Clique;
  /** IBFT 2.0 or QBFT (`bft.variant`), behind ibft_* or qbft_*. */
  bft?: Bft;
  /** Block production (proof-of-work chains); absent where the consensus mines no blocks locally. */
  miner?: MiningService;
  /** The log bloom cache files (eth_getLogs and log filters read full segments from them). */
  logBloomCache?: LogBloomCache;
  /** Loaded plugins (plugins_reloadPluginConfig). */
  plugins?: PluginService;
  /** The metrics registry (debug_metrics); absent or disabled when metrics are off. */
  metrics?: MetricsService;
}
