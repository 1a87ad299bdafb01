/**
 * The merge: a proof-of-stake engine wrapping the chain's pre-merge engine (Ethash or Clique). A header
 * whose fork rules are Paris or later is checked by the post-merge rules (difficulty, nonce and ommers
 * zero; no seal; no block reward; the coinbase gets the fees); every earlier header goes to the wrapped
 * engine, which is how a chain crosses the merge. After the merge the consensus client names the head
 * through the engine API (`engineService.ts`); until it first speaks, an imported post-merge block
 * becomes head when it extends the head. The node itself produces no blocks (see `createProducer`).
 */
import { type Block, type BlockHeader, createBlockFromRLP } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { type Address, bigIntToBytes, bytesToBigInt } from '@ethereumjs/util';
import { bytesEqual, type ChainStore } from '../../chain/chainStore.js';
import { checkHeaderAgainstParent, checkHeaderAlone, isPostMerge } from '../../chain/validation.js';
import { metaKey } from '../../db/database.js';
import type { ForkChoiceCandidate } from '../../execution/consensusRules.js';
import type { ConsensusApis, ConsensusEngine, NodeProducer, ProducerContext } from '../engine.js';
import { UnsupportedConsensusError } from '../errors.js';

const MERGE_BLOCK = metaKey('mergeBlock');

export class MergeConsensus implements ConsensusEngine {
  readonly name: string;
  readonly forkChoice = 'external' as const;
  readonly producesUnasked = false;
  /** Set once a consensus client drives the chain: the head then moves only by its fork choice. */
  private driven = false;

  constructor(
    private readonly pre: ConsensusEngine,
    /** The genesis key that configures the merge, for the refusal message. */
    private readonly configKey: string,
    /**
     * A merge decided at run time: the terminal total difficulty, with the chain whose total
     * difficulties tell when it is reached (absent when the genesis schedules Paris by block or from 0).
     */
    private readonly byDifficulty?: { chain: ChainStore; ttd: bigint },
  ) {
    this.name = `merge(${pre.name})`;
    if (byDifficulty) {
      const stored = byDifficulty.chain.db.get('meta', MERGE_BLOCK);
      if (stored) this.scheduleParis(bytesToBigInt(stored));
    }
  }

  /**
   * Paris by total difficulty: the first block whose parent's total difficulty reaches the terminal
   * total difficulty is the first post-merge block. Its number is recorded (and kept in the database)
   * as Paris's activation block, so that this block, its descendants and every later reading of them
   * run by the post-merge rules — the Common's schedule is shared by the chain's copies of it.
   */
  reviewBlock(block: Block): Block {
    const merge = this.byDifficulty;
    if (!merge || isPostMerge(block.header)) return block;
    const parentTd = merge.chain.getTotalDifficulty(block.header.parentHash);
    if (parentTd === undefined || parentTd < merge.ttd) return block;
    this.scheduleParis(block.header.number);
    const batch = merge.chain.newBatch();
    batch.put('meta', MERGE_BLOCK, bigIntToBytes(block.header.number));
    merge.chain.db.commit(batch);
    return createBlockFromRLP(block.serialize(), {
      common: merge.chain.common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    });
  }

  private scheduleParis(number: bigint): void {
    const paris = this.byDifficulty?.chain.common.hardforks().find((h) => h.name === 'paris');
    if (paris && (paris.block === null || BigInt(paris.block) > number)) paris.block = Number(number);
  }

  get apis(): ConsensusApis {
    return this.pre.apis;
  }

  get sealIsProofOfWork(): boolean {
    return this.pre.sealIsProofOfWork;
  }

  get executionCommon(): Common | undefined {
    return this.pre.executionCommon;
  }

  verifyHeaderAlone(header: BlockHeader): string | undefined {
    return isPostMerge(header) ? checkHeaderAlone(header) : this.pre.verifyHeaderAlone(header);
  }

  verifyHeader(header: BlockHeader, parent: BlockHeader): string | undefined {
    return isPostMerge(header)
      ? checkHeaderAgainstParent(header, parent)
      : this.pre.verifyHeader(header, parent);
  }

  async verifySeal(header: BlockHeader): Promise<string | undefined> {
    return isPostMerge(header) ? undefined : this.pre.verifySeal(header);
  }

  author(header: BlockHeader): Address {
    return isPostMerge(header) ? header.coinbase : this.pre.author(header);
  }

  feeRecipient(header: BlockHeader): Address {
    return isPostMerge(header) ? header.coinbase : this.pre.feeRecipient(header);
  }

  calcDifficulty(parent: BlockHeader, timestamp: bigint): bigint {
    return isPostMerge(parent) ? 0n : this.pre.calcDifficulty(parent, timestamp);
  }

  blockReward(header: BlockHeader): bigint {
    return isPostMerge(header) ? 0n : this.pre.blockReward(header);
  }

  /**
   * Hands fork choice to the consensus client (the engine API's first call): from then on an imported
   * post-merge block is stored without becoming head until a forkchoiceUpdated names it.
   */
  followEngine(): void {
    this.driven = true;
  }

  isBetterHead(candidate: ForkChoiceCandidate, head: ForkChoiceCandidate): boolean {
    if (!isPostMerge(candidate.header)) return this.pre.isBetterHead(candidate, head);
    // Until a consensus client speaks, a block extending the head becomes head (`blocks import`).
    return !this.driven && bytesEqual(candidate.header.parentHash, head.hash);
  }

  /**
   * Production after the merge belongs to the consensus client, through the engine API. On a chain
   * that merges by total difficulty the pre-merge engine produces (mines, seals) until the terminal
   * block — the head whose total difficulty reaches the TTD — and stops there; the consensus client
   * takes over. Where Paris is scheduled by block or from genesis, a node that would produce blocks
   * (the pre-merge engine seals unasked, or --miner-enabled) is refused rather than left to produce
   * blocks the merge rules reject.
   */
  createProducer(ctx: ProducerContext): NodeProducer {
    const merge = this.byDifficulty;
    const produces = this.pre.producesUnasked || ctx.config.minerEnabled;
    if (merge && produces && this.pre.createProducer) {
      const inner = this.pre.createProducer(ctx);
      const reached = () => (merge.chain.getTotalDifficulty(merge.chain.head().hash) ?? 0n) >= merge.ttd;
      let stopped = false;
      const onHead = () => {
        if (stopped || !reached()) return;
        stopped = true;
        merge.chain.off('newHead', onHead);
        void inner.stop();
      };
      return {
        miner: inner.miner,
        start() {
          if (reached()) return;
          merge.chain.on('newHead', onHead);
          inner.start();
        },
        async stop() {
          merge.chain.off('newHead', onHead);
          stopped = true;
          await inner.stop();
        },
      };
    }
    if (produces) {
      const what = this.pre.producesUnasked ? `a ${this.pre.name} signer node` : '--miner-enabled';
      throw new UnsupportedConsensusError(
        this.configKey,
        `after the merge blocks come from a consensus client through the engine API (--engine-rpc-port), not from this node (${what}); use --network=pos-dev for a proof-of-stake development chain`,
      );
    }
    return { start() {}, stop: async () => {} };
  }

  close(): Promise<void> {
    return this.pre.close();
  }
}
