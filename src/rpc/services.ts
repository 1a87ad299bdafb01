/**
 * The backend every adapter (JSON-RPC, WebSocket, GraphQL, engine) answers from. Built once in
 * node.ts; adapters never reach below these services.
 */
import type { Common } from '@ethereumjs/common';
import type { ChainStore } from '../chain/chainStore.js';
import type { Config } from '../config/types.js';
import type { Clique } from '../consensus/clique/index.js';
import type { BlockImporter } from '../execution/importer.js';
import type { FilterManager } from '../filters/manager.js';
import type { MiningService } from '../mining/service.js';
import type { WorldState } from '../state/worldState.js';
import type { TxPool } from '../txpool/pool.js';

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
  /** Number of connected peers (0 until networking exists). */
  peerCount(): number;
  /** The transaction pool; absent where no pool runs (methods answer `Transaction pool not enabled`). */
  txPool?: TxPool;
  /** Poll filters (eth_newFilter …). */
  filters?: FilterManager;
  /** Clique signers, votes and proposals; present only on Clique chains. */
  clique?: Clique;
  /** Block production (proof-of-work chains); absent where the consensus mines no blocks locally. */
  miner?: MiningService;
}
