/**
 * The Clique consensus engine: the shared header rules with proof-of-authority exceptions plus Clique's
 * (seal, signer, turn, extraData, votes), the signer as author and fee recipient, no block reward, the
 * heaviest chain as fork choice, the clique_* namespace, and production by the shared builder signed
 * with the node key whenever that key is a signer.
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { Common, CustomCrypto } from '@ethereumjs/common';
import type { Address } from '@ethereumjs/util';
import type { ChainStore } from '../../chain/chainStore.js';
import { checkHeaderAgainstParent, checkHeaderAlone } from '../../chain/validation.js';
import type { GenesisSpec } from '../../config/genesis.js';
import { type ForkChoiceCandidate, totalDifficultyWins } from '../../execution/consensusRules.js';
import { logger } from '../../log.js';
import { BlockBuilder } from '../../mining/builder.js';
import { BlockProducer } from '../../mining/producer.js';
import type { ConsensusApis, ConsensusEngine, NodeProducer, ProducerContext } from '../engine.js';
import { Clique, cliqueExecutionCommon } from './index.js';
import { CliqueSnapshots } from './snapshot.js';
import { DIFF_IN_TURN, DIFF_NO_TURN } from './validation.js';

export class CliqueConsensus implements ConsensusEngine {
  readonly name = 'clique';
  readonly forkChoice = 'totalDifficulty' as const;
  readonly sealIsProofOfWork = false;
  readonly producesUnasked = true;
  readonly clique: Clique;
  readonly apis: ConsensusApis;
  readonly executionCommon: Common;
  /** The node key's address once a producer exists (the signer `calcDifficulty` answers for). */
  private localSigner: string | undefined;

  constructor(chain: ChainStore, genesis: GenesisSpec, customCrypto: CustomCrypto) {
    const spec = genesis.config.clique;
    if (!spec) throw new Error('Clique engine on a genesis without config.clique');
    this.clique = new Clique(chain, spec);
    this.apis = { clique: this.clique };
    this.executionCommon = cliqueExecutionCommon(genesis, customCrypto);
    // A Clique genesis must list its signers; refuse to start on one that does not.
    const genesisHeader = chain.getHeaderByNumber(0n);
    if (genesisHeader) this.clique.signersAfter(genesisHeader);
  }

  verifyHeaderAlone(header: BlockHeader): string | undefined {
    return checkHeaderAlone(header, { proofOfAuthority: true }) ?? this.clique.rules.checkHeaderAlone(header);
  }

  verifyHeader(header: BlockHeader, parent: BlockHeader): string | undefined {
    return (
      checkHeaderAgainstParent(header, parent, { proofOfAuthority: true }) ??
      this.clique.rules.checkHeader(header, parent)
    );
  }

  /** The signature is checked with the header rules (it decides signer, turn and difficulty). */
  async verifySeal(_header: BlockHeader): Promise<string | undefined> {
    return undefined;
  }

  author(header: BlockHeader): Address {
    return this.clique.rules.beneficiary(header);
  }

  feeRecipient(header: BlockHeader): Address {
    return this.clique.rules.beneficiary(header);
  }

  /** The difficulty this node's key would seal the child of `parent` with: 2 in turn, 1 out of turn. */
  calcDifficulty(parent: BlockHeader, _timestamp: bigint): bigint {
    const signer = this.localSigner;
    if (!signer) throw new Error('Clique difficulty depends on the signer: this node has no producer');
    const tally = this.clique.snapshots.tallyAfter(parent);
    return CliqueSnapshots.inTurn(tally, signer, parent.number + 1n) ? DIFF_IN_TURN : DIFF_NO_TURN;
  }

  blockReward(_header: BlockHeader): bigint {
    return 0n;
  }

  isBetterHead(candidate: ForkChoiceCandidate, head: ForkChoiceCandidate): boolean {
    return totalDifficultyWins(candidate, head);
  }

  /** Seals whenever the node key is a signer, without --miner-enabled (as Besu). */
  createProducer(ctx: ProducerContext): NodeProducer {
    const { config } = ctx;
    const engine = this.clique.engine(ctx.nodeKey, config.minerExtraData);
    this.localSigner = engine.signer;
    const log = logger('clique');
    log.info({ signer: engine.signer }, 'Clique signer address of the node key');
    const builder = new BlockBuilder(ctx.chain, ctx.importer, ctx.pool, {
      minGasPrice: () => config.minGasPrice,
      minPriorityFee: () => config.minPriorityFee,
      targetGasLimit: () => config.targetGasLimit,
      selectionTimeLimitMs: () =>
        (this.clique.spec.blockPeriodSeconds * 1000 * config.poaBlockTxsSelectionMaxTime) / 100,
    });
    const producer = new BlockProducer(ctx.chain, ctx.importer, builder, engine, log, {
      isSyncing: ctx.isSyncing,
    });
    return { start: () => producer.start(), stop: () => producer.stop() };
  }

  async close(): Promise<void> {}
}
