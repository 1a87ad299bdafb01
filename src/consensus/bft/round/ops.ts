/**
 * What the round state machine needs from the chain and the consensus core, and nothing more: the
 * validators and timing of a height, building, checking, re-rounding, sealing and importing blocks. The
 * IBFT 2.0 and QBFT engines supply it over the real chain; tests supply it in process.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';

export interface BftTiming {
  /** `blockperiodseconds` in force at the height. */
  blockPeriodSeconds: number;
  /** `xblockperiodmilliseconds` (test networks): the next block this long after the timer starts. */
  blockPeriodMilliseconds?: number;
  /** QBFT's `emptyblockperiodseconds` (0: empty blocks every period). */
  emptyBlockPeriodSeconds: number;
  /** `requesttimeoutseconds`: round 0 lasts this long, each round after twice the one before. */
  requestTimeoutSeconds: number;
}

export interface BftChainOps {
  /** The validators of the block after `parent`, as lowercase `0x` addresses in the provider's order. */
  validatorsAfter(parent: BlockHeader): Promise<readonly string[]>;
  /** The proposer of `parent` (its coinbase; the genesis block's too). */
  proposerOf(header: BlockHeader): string;
  timing(height: bigint): BftTiming;
  /**
   * A block on `parent` for `round`: coinbase the local validator, extraData with the validators, the
   * pending vote, the round and no seals; transactions from the pool.
   */
  createBlock(parent: BlockHeader, round: number, timestamp: bigint): Promise<Block>;
  /** Full validation of a proposed block against its parent (header rules, execution); a reason or undefined. */
  validateBlock(block: Block, parent: BlockHeader): Promise<string | undefined>;
  /** The round written in the block's extraData. */
  roundOf(block: Block): number;
  /** The block with its extraData round replaced (what a re-proposal carries). */
  replaceRound(block: Block, round: number): Block;
  /** The hash committed seals sign: header with extraData without seals, round included. */
  digest(block: Block): Uint8Array;
  /** The block with `seals` and `round` written into its extraData: the block that goes on chain. */
  seal(block: Block, round: number, seals: readonly Uint8Array[]): Block;
  /** Imports a finalised block through the node's import path; a reason when it failed. */
  importBlock(block: Block): Promise<string | undefined>;
}

/** Besu's quorum: ceil(2n/3). */
export function quorumOf(validators: number): number {
  return Math.ceil((2 * validators) / 3);
}

/**
 * Besu's proposer rotation (changing every block): from the previous block's proposer move one
 * position plus the round through the validator list; when the previous proposer is no longer a
 * validator, start from the first validator after it in address order.
 */
export function selectProposer(prevProposer: string, validators: readonly string[], round: number): string {
  if (validators.length === 0) throw new Error('no validators');
  const prev = prevProposer.toLowerCase();
  const idx = validators.indexOf(prev);
  if (idx >= 0) return validators[(idx + 1 + round) % validators.length] as string;
  const sorted = [...validators].sort();
  const next = sorted.find((v) => v > prev) ?? (sorted[0] as string);
  const base = validators.indexOf(next);
  return validators[(base + round) % validators.length] as string;
}
