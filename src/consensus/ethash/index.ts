/**
 * The Ethash consensus engine: proof-of-work header rules (difficulty by the canonical formula or the
 * genesis' fixed difficulty), the seal check over the epoch caches, the miner's block reward, the
 * heaviest chain as fork choice, and production by the shared builder with a nonce search.
 */
import { type BlockHeader, createBlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { type Address, createAddressFromString } from '@ethereumjs/util';
import { paramsVM } from '@ethereumjs/vm';
import { checkHeaderAgainstParent, checkHeaderAlone, isPostMerge } from '../../chain/validation.js';
import { type ForkChoiceCandidate, totalDifficultyWins } from '../../execution/consensusRules.js';
import { logger } from '../../log.js';
import { BlockBuilder } from '../../mining/builder.js';
import { BlockProducer } from '../../mining/producer.js';
import { MiningService } from '../../mining/service.js';
import type { ConsensusApis, ConsensusEngine, NodeProducer, ProducerContext } from '../engine.js';
import type { EthashCaches } from './caches.js';
import { EthashEngine } from './engine.js';
import { createSealVerifier } from './seal.js';

export class EthashConsensus implements ConsensusEngine {
  readonly name = 'ethash';
  readonly forkChoice = 'totalDifficulty' as const;
  readonly sealIsProofOfWork = true;
  readonly producesUnasked = false;
  readonly apis: ConsensusApis = {};
  private readonly sealVerifier: (header: BlockHeader) => Promise<string | undefined>;

  constructor(
    private readonly common: Common,
    private readonly caches: EthashCaches,
    private readonly fixedDifficulty: bigint | undefined,
  ) {
    this.sealVerifier = createSealVerifier(caches);
  }

  verifyHeaderAlone(header: BlockHeader): string | undefined {
    return checkHeaderAlone(header);
  }

  verifyHeader(header: BlockHeader, parent: BlockHeader): string | undefined {
    return checkHeaderAgainstParent(header, parent, { fixedDifficulty: this.fixedDifficulty });
  }

  verifySeal(header: BlockHeader): Promise<string | undefined> {
    return this.sealVerifier(header);
  }

  author(header: BlockHeader): Address {
    return header.coinbase;
  }

  feeRecipient(header: BlockHeader): Address {
    return header.coinbase;
  }

  calcDifficulty(parent: BlockHeader, timestamp: bigint): bigint {
    if (this.fixedDifficulty !== undefined) return this.fixedDifficulty;
    const common = this.common.copy();
    common.setHardforkBy({ blockNumber: parent.number + 1n, timestamp });
    const probe = createBlockHeader(
      { number: parent.number + 1n, timestamp, parentHash: parent.hash(), gasLimit: parent.gasLimit },
      { common, skipConsensusFormatValidation: true },
    );
    return probe.ethashCanonicalDifficulty(parent);
  }

  blockReward(header: BlockHeader): bigint {
    const common = header.common;
    if (common.consensusType() !== 'pow' || isPostMerge(header)) return 0n;
    try {
      return common.param('minerReward');
    } catch {
      // The reward belongs to the VM's parameter set: a Common no VM was built on yet lacks it.
      const withVm = common.copy();
      withVm.updateParams(paramsVM);
      return withVm.param('minerReward');
    }
  }

  isBetterHead(candidate: ForkChoiceCandidate, head: ForkChoiceCandidate): boolean {
    return totalDifficultyWins(candidate, head);
  }

  /** The shared builder and producer driving a nonce search; mining starts with --miner-enabled or miner_start. */
  createProducer(ctx: ProducerContext): NodeProducer {
    const { config } = ctx;
    const settings = {
      minGasPrice: config.minGasPrice,
      minPriorityFee: config.minPriorityFee,
      targetGasLimit: config.targetGasLimit,
    };
    const sealer = new EthashEngine(this, this.caches, {
      coinbase: config.minerCoinbase ? createAddressFromString(config.minerCoinbase) : undefined,
      extraData: config.minerExtraData,
    });
    const builder = new BlockBuilder(ctx.chain, ctx.importer, ctx.pool, {
      minGasPrice: () => settings.minGasPrice,
      minPriorityFee: () => settings.minPriorityFee,
      targetGasLimit: () => settings.targetGasLimit,
    });
    const producer = new BlockProducer(ctx.chain, ctx.importer, builder, sealer, logger('miner'), {
      isSyncing: ctx.isSyncing,
      pool: ctx.pool,
      rebuildWhileSealing: true,
      collectMs: 1000,
    });
    const miner = new MiningService(producer, sealer, settings, ctx.pool);
    return {
      miner,
      start: () => {
        if (config.minerEnabled) miner.start();
      },
      stop: async () => {
        await miner.stop();
        await sealer.close();
      },
    };
  }

  async close(): Promise<void> {}
}
