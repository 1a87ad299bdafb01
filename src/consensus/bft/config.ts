/**
 * The BFT options in force at each block: the genesis `config.ibft2`/`config.qbft` object with its
 * `transitions` applied in block order, each transition changing only what it names (Besu's forks
 * schedule). Epochs, the request timeout and the message limits do not change by transition.
 */
import type { BftSpec, BftTransition } from '../../config/genesis.js';
import type { BftVariant } from './extraData.js';

export type ValidatorSelection = { mode: 'blockheader' } | { mode: 'contract'; contractAddress: string };

/** The options of one stretch of blocks. */
export interface BftForkOptions {
  /** First block these options apply to. */
  block: bigint;
  blockPeriodSeconds: number;
  emptyBlockPeriodSeconds: number;
  blockReward: bigint;
  /** Who receives the block reward; undefined pays the proposer (the coinbase). */
  miningBeneficiary: string | undefined;
  validatorSelection: ValidatorSelection;
}

export class BftConfigSchedule {
  readonly epochLength: bigint;
  readonly requestTimeoutSeconds: number;
  /** QBFT `startblock` (0 when absent): epochs count from it. */
  readonly startBlock: bigint;
  /** Ascending by block; the first starts at block 0. */
  readonly forks: readonly BftForkOptions[];
  /** Validator sets that transitions impose, keyed by the block they apply from. */
  private readonly overrides = new Map<bigint, string[]>();

  constructor(
    readonly variant: BftVariant,
    readonly spec: BftSpec,
  ) {
    this.epochLength = spec.epochLength;
    this.requestTimeoutSeconds = spec.requestTimeoutSeconds;
    this.startBlock = spec.startBlock ?? 0n;
    let last: BftForkOptions = {
      block: 0n,
      blockPeriodSeconds: spec.blockPeriodSeconds,
      emptyBlockPeriodSeconds: spec.emptyBlockPeriodSeconds,
      blockReward: spec.blockReward,
      miningBeneficiary: spec.miningBeneficiary,
      validatorSelection:
        variant === 'qbft' && spec.validatorContractAddress !== undefined
          ? { mode: 'contract', contractAddress: spec.validatorContractAddress }
          : { mode: 'blockheader' },
    };
    const forks = [last];
    for (const t of spec.transitions) {
      last = applyTransition(variant, last, t);
      forks.push(last);
      if (t.validators !== undefined && t.validators.length > 0)
        this.overrides.set(t.block, [...new Set(t.validators)].sort());
    }
    this.forks = forks;
  }

  /** The options for block `number`. */
  at(number: bigint): BftForkOptions {
    let found = this.forks[0] as BftForkOptions;
    for (const f of this.forks) {
      if (f.block > number) break;
      found = f;
    }
    return found;
  }

  /** Votes are discarded at epoch blocks (counted from the start block). */
  isEpochBlock(number: bigint): boolean {
    const start = this.startBlock;
    if (number < start - 1n) return false;
    return (number - (start === 0n ? 0n : start - 1n)) % this.epochLength === 0n;
  }

  /** The validator set a transition imposes from block `number` on, if one does. */
  validatorOverride(number: bigint): readonly string[] | undefined {
    return this.overrides.get(number);
  }
}

function applyTransition(variant: BftVariant, last: BftForkOptions, t: BftTransition): BftForkOptions {
  const next: BftForkOptions = { ...last, block: t.block };
  if (t.blockPeriodSeconds !== undefined) next.blockPeriodSeconds = t.blockPeriodSeconds;
  if (t.emptyBlockPeriodSeconds !== undefined) next.emptyBlockPeriodSeconds = t.emptyBlockPeriodSeconds;
  if (t.blockReward !== undefined) next.blockReward = t.blockReward;
  if (t.miningBeneficiary !== undefined) next.miningBeneficiary = t.miningBeneficiary ?? undefined;
  if (variant === 'qbft') {
    if (t.validatorSelectionMode === 'blockheader') next.validatorSelection = { mode: 'blockheader' };
    else if (t.validatorSelectionMode === 'contract' && t.validatorContractAddress !== undefined)
      next.validatorSelection = { mode: 'contract', contractAddress: t.validatorContractAddress };
  }
  return next;
}
