/**
 * The BFT service a node wires in for IBFT 2.0 or QBFT: the options schedule, the validator provider,
 * this node's vote proposals, and the questions the RPC methods and the round machine ask (validators
 * of a block, proposer of a round, pending votes, request timeout).
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { BftSpec } from '../../config/genesis.js';
import { BftConfigSchedule } from './config.js';
import type { BftVariant } from './extraData.js';
import { proposerForRound, roundTimeoutMs } from './rules.js';
import { BftValidators, type ContractCaller, type HeaderSource } from './validators.js';
import { VoteProposals } from './votes.js';

export class Bft {
  readonly schedule: BftConfigSchedule;
  readonly validators: BftValidators;
  readonly proposals = new VoteProposals();

  constructor(
    readonly variant: BftVariant,
    spec: BftSpec,
    readonly headers: HeaderSource,
    call: ContractCaller | undefined,
  ) {
    this.schedule = new BftConfigSchedule(variant, spec);
    this.validators = new BftValidators(variant, headers, this.schedule, call);
  }

  /** `requesttimeoutseconds`: the base of the round timer. */
  get requestTimeoutSeconds(): number {
    return this.schedule.requestTimeoutSeconds;
  }

  /** The validators of the child of `parent`, ascending. */
  validatorsAfter(parent: BlockHeader): Promise<readonly string[]> {
    return this.validators.validatorsAfter(parent);
  }

  /** The validators of `header` itself (ibft_/qbft_getValidatorsByBlock*). */
  validatorsOf(header: BlockHeader): Promise<readonly string[]> {
    return this.validators.validatorsOf(header);
  }

  /** Who proposed `header`: its coinbase (the genesis block's zero address included). */
  proposerOf(header: BlockHeader): string {
    return header.coinbase.toString();
  }

  /** The proposer of `round` for the child of `parent`. */
  async proposerFor(parent: BlockHeader, round: number): Promise<string> {
    return proposerForRound(this.proposerOf(parent), await this.validatorsAfter(parent), round);
  }

  /** How long `round` of block `number` lasts before a round change, in milliseconds. */
  roundTimeoutMs(round: number): number {
    return roundTimeoutMs(this.schedule.requestTimeoutSeconds, round);
  }

  /** True when the chain head is in block-header validator selection, where votes can be proposed. */
  hasVoteProviderAt(head: BlockHeader): boolean {
    return !this.validators.isContractMode(head.number);
  }
}
