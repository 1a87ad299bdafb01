/**
 * Building, sealing and committing BFT blocks for this node's key — what the round machine calls. A
 * proposal is a block built on a parent by the shared builder, with this node as proposer (coinbase),
 * the validators after the parent, one of this node's pending votes, the round, and no seals. The
 * validators each sign it (`commitSeal`); once a quorum of seals is in, `seal` writes them into
 * extraData (the block hash does not change) and `commit` stores the block.
 */
import {
  type Block,
  type BlockHeader,
  createBlockFromBytesArray,
  createBlockHeaderFromBytesArray,
} from '@ethereumjs/block';
import { Address, hexToBytes } from '@ethereumjs/util';
import { BlockExecutionError } from '../../execution/blockProcessor.js';
import type { ImportResult } from '../../execution/importer.js';
import { BlockBuilder, type BuiltBlock } from '../../mining/builder.js';
import type { EngineHeaderFields, SealingEngine } from '../../mining/engine.js';
import type { ProducerContext } from '../engine.js';
import type { BftConsensus } from './consensus.js';
import { decodeExtraData, encodeExtraData, vanityOf } from './extraData.js';
import { addressOfPrivateKey, commitSealDigest, recoverSealer, signCommitSeal } from './hashing.js';
import { BFT_DIFFICULTY, BFT_MIX_HASH } from './rules.js';

const ZERO_NONCE = new Uint8Array(8);

export class BftBlockCreator {
  /** Lowercase `0x…` address of the node key: the proposer of the blocks it builds. */
  readonly address: string;
  private readonly builder: BlockBuilder;

  constructor(
    readonly engine: BftConsensus,
    private readonly ctx: ProducerContext,
  ) {
    this.address = addressOfPrivateKey(ctx.nodeKey);
    const config = ctx.config;
    this.builder = new BlockBuilder(ctx.chain, ctx.importer, ctx.pool, {
      minGasPrice: () => config.minGasPrice,
      minPriorityFee: () => config.minPriorityFee,
      targetGasLimit: () => config.targetGasLimit,
      selectionTimeLimitMs: (number) =>
        (engine.bft.schedule.at(number).blockPeriodSeconds * 1000 * config.poaBlockTxsSelectionMaxTime) / 100,
    });
  }

  /** The earliest timestamp of a child of `parent`: parent + block period of the child's block. */
  earliestTimestamp(parent: BlockHeader): bigint {
    return parent.timestamp + BigInt(this.engine.bft.schedule.at(parent.number + 1n).blockPeriodSeconds);
  }

  /**
   * Builds the unsealed proposal of `round` on `parent` at `timestamp` with this node as proposer.
   * Throws `BuildAbortedError` when `signal` fires.
   */
  async createBlock(
    parent: BlockHeader,
    round: number,
    timestamp: bigint,
    signal?: AbortSignal,
  ): Promise<BuiltBlock> {
    const bft = this.engine.bft;
    const validators = await bft.validatorsAfter(parent);
    const tally = bft.validators.tallyAfter(parent);
    const vote = tally ? bft.proposals.nextVote(this.address, tally) : undefined;
    const vanity = vanityOf(this.ctx.config.minerExtraData);
    const contract = bft.validators.isContractMode(parent.number + 1n);
    const extraData = encodeExtraData(bft.variant, {
      vanity,
      validators: contract ? [] : [...validators],
      vote,
      round,
      seals: [],
    });
    const fields: EngineHeaderFields = {
      coinbase: new Address(hexToBytes(this.address as `0x${string}`)),
      difficulty: BFT_DIFFICULTY,
      extraData,
      nonce: ZERO_NONCE,
      mixHash: hexToBytes(BFT_MIX_HASH),
    };
    const recipient = this.engine.feeRecipient.bind(this.engine);
    const sealing: SealingEngine = {
      name: bft.variant,
      childHeaderFields: () => fields,
      childTimestamp: () => timestamp,
      nextBlockDelay: () => 0,
      executionHeader: (unsealed) => {
        const to = recipient(unsealed);
        if (to.equals(unsealed.coinbase)) return unsealed;
        const raw = unsealed.raw();
        raw[2] = to.bytes;
        return createBlockHeaderFromBytesArray(raw, {
          common: unsealed.common,
          skipConsensusFormatValidation: true,
        });
      },
      seal: async (block) => block,
    };
    return this.builder.build(parent, sealing, timestamp, signal);
  }

  /** `block` with its extraData round replaced (a proposal carried over to a later round). */
  withRound(block: Block, round: number): Block {
    const variant = this.engine.variant;
    const extra = decodeExtraData(variant, block.header.extraData);
    return replaceExtra(block, encodeExtraData(variant, { ...extra, round }));
  }

  /** This node's committed seal of a proposed block (over the header without seals, round included). */
  commitSeal(block: Block): Uint8Array {
    return signCommitSeal(commitSealDigest(this.engine.variant, block.header), this.ctx.nodeKey);
  }

  /** The validator whose committed seal `seal` is for `block`; throws on an invalid signature. */
  sealer(block: Block, seal: Uint8Array): string {
    return recoverSealer(seal, commitSealDigest(this.engine.variant, block.header));
  }

  /** The block with the committed seals in its extraData (its hash is unchanged). */
  seal(block: Block, seals: readonly Uint8Array[]): Block {
    return sealBlock(this.engine, block, seals);
  }

  /**
   * Stores a sealed block built here (without executing it again): header checks, block, receipts,
   * state and head in one transaction. `built` is what `createBlock` returned for it.
   */
  commit(sealed: Block, built: BuiltBlock): Promise<ImportResult> {
    return this.ctx.importer.commitBuilt(sealed, built.execution);
  }

  /**
   * Checks a proposal received from a peer before this node prepares and commits it: header rules,
   * validators and proposer, then execution on the parent's state (in a private VM that writes
   * nothing). Resolves with the reason it is invalid, or `undefined`.
   */
  async validateProposal(block: Block): Promise<string | undefined> {
    const reason = await this.engine.verifyProposalHeader(block.header);
    if (reason) return reason;
    try {
      await this.ctx.importer.processor.replay(block);
    } catch (err) {
      if (err instanceof BlockExecutionError) return err.reason;
      return err instanceof Error ? err.message : String(err);
    }
    return undefined;
  }

  /** Imports a sealed block received from a peer (full checks and execution). */
  importBlock(block: Block): Promise<ImportResult> {
    return this.ctx.importer.importBlock(block);
  }
}

/** `block` with committed seals written into its extraData. */
export function sealBlock(engine: BftConsensus, block: Block, seals: readonly Uint8Array[]): Block {
  const variant = engine.variant;
  const extra = decodeExtraData(variant, block.header.extraData);
  return replaceExtra(block, encodeExtraData(variant, { ...extra, seals: [...seals] }));
}

function replaceExtra(block: Block, extraData: Uint8Array): Block {
  const raw = block.raw();
  const header = raw[0] as Uint8Array[];
  header[12] = extraData;
  return createBlockFromBytesArray(raw as Parameters<typeof createBlockFromBytesArray>[0], {
    common: block.common,
    skipConsensusFormatValidation: true,
  });
}
