/**
 * Picks the consensus engine from the genesis: IBFT 2.0 for `config.ibft2`, QBFT for `config.qbft`,
 * Clique for `config.clique`, Ethash otherwise, wrapped by the merge engine when the genesis
 * configures the merge. A combination Alder does not run is refused here, at start, naming its key.
 */
import { join } from 'node:path';
import type { CustomCrypto } from '@ethereumjs/common';
import type { ChainStore } from '../chain/chainStore.js';
import { type GenesisSpec, isBftConsensus } from '../config/genesis.js';
import type { WorldState } from '../state/worldState.js';
import { withRoundProducer } from './bft/round/producer.js';
import { CliqueConsensus } from './clique/consensus.js';
import type { ConsensusEngine } from './engine.js';
import { UnsupportedConsensusError } from './errors.js';
import { EthashCaches } from './ethash/caches.js';
import { EthashConsensus } from './ethash/index.js';
import { createIbft2Consensus } from './ibft2/index.js';
import { MergeConsensus } from './merge/index.js';
import { createQbftConsensus } from './qbft/index.js';

export interface EngineDeps {
  chain: ChainStore;
  /** The data directory (Ethash keeps its epoch caches under it). */
  dataPath: string;
  customCrypto: CustomCrypto;
  /** The world state (QBFT reads validator contracts on it). */
  world?: WorldState;
}

export function createConsensusEngine(genesis: GenesisSpec, deps: EngineDeps): ConsensusEngine {
  const cfg = genesis.config;
  if (isBftConsensus(cfg.consensus)) {
    if (cfg.terminalTotalDifficulty !== undefined)
      throw new UnsupportedConsensusError(
        'config.terminalTotalDifficulty',
        `a ${cfg.consensus === 'qbft' ? 'QBFT' : 'IBFT 2.0'} chain cannot move to proof of stake here`,
      );
    // Validators produce by rounds over the BFT sub-protocol (bft/round/).
    return withRoundProducer(
      cfg.consensus === 'ibft2' ? createIbft2Consensus(genesis, deps) : createQbftConsensus(genesis, deps),
    );
  }
  const pre: ConsensusEngine =
    cfg.consensus === 'clique'
      ? new CliqueConsensus(deps.chain, genesis, deps.customCrypto)
      : new EthashConsensus(
          deps.chain.common,
          new EthashCaches(join(deps.dataPath, 'ethash')),
          cfg.ethash?.fixedDifficulty,
        );
  const mergeKey = mergeConfigKey(genesis);
  return mergeKey ? new MergeConsensus(pre, mergeKey) : pre;
}

/**
 * The genesis key that configures the merge, undefined when the chain never merges: a terminal total
 * difficulty, a merge block, or forks scheduled by time (which only exist after the merge).
 */
export function mergeConfigKey(genesis: GenesisSpec): string | undefined {
  const cfg = genesis.config;
  const raw = Object.keys(cfg.raw);
  const find = (pred: (lower: string) => boolean) => raw.find((k) => pred(k.toLowerCase()));
  if (cfg.terminalTotalDifficulty !== undefined)
    return `config.${find((k) => k === 'terminaltotaldifficulty') ?? 'terminalTotalDifficulty'}`;
  const key = find((k) => k === 'mergeforkblock') ?? find((k) => k.endsWith('time') && k !== 'time');
  if (key) return `config.${key}`;
  return undefined;
}
