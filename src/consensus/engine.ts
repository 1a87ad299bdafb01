/**
 * The consensus seam. Every engine (one folder under `consensus/`) implements `ConsensusEngine`: the
 * rules import needs (`ConsensusRules`, declared in `execution/` so the layers below depend on a
 * contract, not on an engine), its own RPC namespace, and — when it produces blocks itself — a producer
 * made of the shared builder and production loop in `mining/` driven by the engine's sealing hooks.
 * `factory.ts` picks the engine from the genesis; the proof-of-stake engine wraps the pre-merge one.
 */
import type { ChainStore } from '../chain/chainStore.js';
import type { Config } from '../config/types.js';
import type { ConsensusRules } from '../execution/consensusRules.js';
import type { BlockImporter } from '../execution/importer.js';
import type { MiningService } from '../mining/service.js';
import type { NetworkService } from '../p2p/network.js';
import type { TxPool } from '../txpool/pool.js';
import type { Bft } from './bft/service.js';
import type { Clique } from './clique/index.js';

/** The services behind an engine's own RPC namespace (`clique_*`; `ibft_*` or `qbft_*`). */
export interface ConsensusApis {
  clique?: Clique;
  /** IBFT 2.0 (`ibft_*`) or QBFT (`qbft_*`), as `bft.variant` says. */
  bft?: Bft;
}

/** What an engine needs to produce blocks on this node. */
export interface ProducerContext {
  config: Config;
  chain: ChainStore;
  importer: BlockImporter;
  pool: TxPool | undefined;
  /** The node key (Clique and the BFT engines sign with it). */
  nodeKey: Uint8Array;
  /** True while the node is behind its peers: production pauses (the interface's rule). */
  isSyncing?: () => boolean;
  /** The P2P network, not started yet: engines that agree over a sub-protocol register it here. */
  network?: NetworkService;
}

/** Block production on this node. */
export interface NodeProducer {
  /** The service behind miner_* and eth_mining/eth_getWork …, for engines an operator starts and stops. */
  readonly miner?: MiningService;
  /** Starts production as the configuration asks (Ethash: with --miner-enabled). */
  start(): void;
  stop(): Promise<void>;
}

export interface ConsensusEngine extends ConsensusRules {
  /** The engine's RPC namespaces. */
  readonly apis: ConsensusApis;
  /**
   * True when a node produces blocks without being asked (Clique seals whenever its key is a signer);
   * false when production waits for an operator (`--miner-enabled`, miner_start).
   */
  readonly producesUnasked: boolean;
  /** This node's producer, when the engine produces blocks itself. */
  createProducer?(ctx: ProducerContext): NodeProducer;
  /** Releases what the engine holds (worker threads, caches). */
  close(): Promise<void>;
}
