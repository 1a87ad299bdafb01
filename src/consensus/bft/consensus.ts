/**
 * The IBFT 2.0 / QBFT consensus engine: header rules (the shared ones under proof of authority plus
 * BFT's constants, extraData layout, block period, validators, proposer and committed seals), the
 * proposer as author, the mining beneficiary (or the proposer) as fee and reward recipient, the
 * transition schedule's block reward, and fork choice that never leaves a finalized block. Production
 * by rounds builds blocks with `BftBlockCreator` (see README.md).
 */
import type { BlockHeader } from '@ethereumjs/block';
import type { Common, CustomCrypto } from '@ethereumjs/common';
import { type Address, bytesToHex, createAddressFromString } from '@ethereumjs/util';
import type { ChainStore } from '../../chain/chainStore.js';
import { checkHeaderAgainstParent, checkHeaderAlone } from '../../chain/validation.js';
import { GenesisError } from '../../config/errors.js';
import { createCommon, type GenesisSpec } from '../../config/genesis.js';
import { type ForkChoiceCandidate, totalDifficultyWins } from '../../execution/consensusRules.js';
import type { WorldState } from '../../state/worldState.js';
import type { ConsensusApis, ConsensusEngine } from '../engine.js';
import { type BftExtraData, BftExtraDataError, type BftVariant, decodeExtraData } from './extraData.js';
import { recoverCommitters } from './hashing.js';
import { BFT_DIFFICULTY, BFT_MIX_HASH, quorum } from './rules.js';
import { Bft } from './service.js';
import type { ContractCaller } from './validators.js';

const EMPTY_UNCLE_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const ZERO_NONCE = '0x0000000000000000';

/** What the factory hands a BFT engine. */
export interface BftEngineDeps {
  chain: ChainStore;
  customCrypto: CustomCrypto;
  /** The world state the validator contract is read on. */
  world?: WorldState;
}

export interface BftConsensusOptions {
  customCrypto: CustomCrypto;
  /** Runs a call on a block's state (QBFT validator contracts); without it contract mode fails. */
  call?: ContractCaller;
  /** The wall clock in milliseconds (blocks more than 1 s in the future are refused). */
  now?: () => number;
}

/**
 * The Common BFT blocks execute with: the chain's forks under a consensus that pays `header.coinbase`
 * (the importer and the builder put the fee recipient there).
 */
export function bftExecutionCommon(genesis: GenesisSpec, customCrypto: CustomCrypto): Common {
  return createCommon(genesis, { customCrypto, consensusOverride: 'ethash' });
}

export class BftConsensus implements ConsensusEngine {
  readonly name: BftVariant;
  readonly forkChoice = 'finality' as const;
  readonly sealIsProofOfWork = false;
  readonly producesUnasked = true;
  readonly bft: Bft;
  readonly apis: ConsensusApis;
  readonly executionCommon: Common;
  private readonly now: () => number;

  constructor(
    readonly variant: BftVariant,
    private readonly chain: ChainStore,
    genesis: GenesisSpec,
    opts: BftConsensusOptions,
  ) {
    const spec = variant === 'ibft2' ? genesis.config.ibft2 : genesis.config.qbft;
    if (!spec) throw new Error(`BFT engine on a genesis without config.${variant}`);
    this.name = variant;
    this.bft = new Bft(variant, spec, chain, opts.call);
    this.apis = { bft: this.bft };
    this.executionCommon = bftExecutionCommon(genesis, opts.customCrypto);
    this.now = opts.now ?? Date.now;
    // A BFT genesis must carry its validators (block-header mode) in a readable extraData.
    if (!this.bft.validators.isContractMode(1n) && !this.bft.schedule.validatorOverride(1n)) {
      let listed: BftExtraData;
      try {
        listed = decodeExtraData(variant, genesis.extraData);
      } catch (err) {
        throw new GenesisError(`Genesis ${err instanceof Error ? err.message : String(err)}`);
      }
      if (listed.validators.length === 0) throw new GenesisError('Genesis extraData lists no validators');
    }
  }

  private decode(header: BlockHeader): BftExtraData | string {
    try {
      return decodeExtraData(this.variant, header.extraData);
    } catch (err) {
      if (err instanceof BftExtraDataError) return err.message;
      throw err;
    }
  }

  verifyHeaderAlone(header: BlockHeader): string | undefined {
    const shared = checkHeaderAlone(header, { proofOfAuthority: true });
    if (shared) return shared;
    const extra = this.decode(header);
    if (typeof extra === 'string') return extra;
    if (bytesToHex(header.mixHash) !== BFT_MIX_HASH)
      return `mixHash ${bytesToHex(header.mixHash)} is not the BFT constant ${BFT_MIX_HASH}`;
    if (header.difficulty !== BFT_DIFFICULTY) return `difficulty ${header.difficulty} is not 1`;
    if (this.variant === 'ibft2') {
      if (bytesToHex(header.nonce) !== ZERO_NONCE) return `nonce ${bytesToHex(header.nonce)} is not 0`;
      if (bytesToHex(header.uncleHash) !== EMPTY_UNCLE_HASH) return 'IBFT 2.0 blocks have no ommers';
    }
    if (this.bft.validators.isContractMode(header.number)) {
      if (extra.validators.length > 0)
        return `extraData lists ${extra.validators.length} validators; the validator contract decides them`;
      if (extra.vote) return 'extraData carries a vote; validators are voted in the validator contract';
    } else {
      const sorted = [...extra.validators].sort();
      if (!sameList(sorted, extra.validators)) return 'extraData validators are not in ascending order';
    }
    const maxAhead = BigInt(Math.floor(this.now() / 1000) + 1);
    if (header.timestamp > maxAhead)
      return `timestamp ${header.timestamp} is more than 1 second in the future`;
    return undefined;
  }

  verifyHeader(header: BlockHeader, parent: BlockHeader): string | undefined {
    const shared = checkHeaderAgainstParent(header, parent, { proofOfAuthority: true });
    if (shared) return shared;
    const period = BigInt(this.bft.schedule.at(header.number).blockPeriodSeconds);
    if (header.timestamp - parent.timestamp < period)
      return `timestamp ${header.timestamp} is less than parent timestamp ${parent.timestamp} + block period ${period}`;
    return undefined;
  }

  /**
   * The checks that need the validator set (which, for a validator contract, means running a call on
   * the parent's state): the extraData list, the proposer, and a quorum of distinct committed seals
   * from validators.
   */
  async verifySeal(header: BlockHeader): Promise<string | undefined> {
    const parent = this.chain.getHeader(header.parentHash);
    if (!parent) return `parent ${bytesToHex(header.parentHash)} is unknown`;
    return this.checkValidators(header, parent);
  }

  /**
   * The rules a proposed (not yet sealed) block must pass before a validator signs it: every header
   * rule, the validators it lists and a proposer that is one of them; `undefined` when it passes.
   * Execution is checked separately (`BftBlockCreator.validateProposal`).
   */
  async verifyProposalHeader(header: BlockHeader): Promise<string | undefined> {
    const parent = this.chain.getHeader(header.parentHash);
    if (!parent) return `parent ${bytesToHex(header.parentHash)} is unknown`;
    const rules = this.verifyHeaderAlone(header) ?? this.verifyHeader(header, parent);
    if (rules) return rules;
    return this.checkValidators(header, parent, { seals: false });
  }

  /** `checkValidatorRules` against the validator set after `parent` (read from its contract if so). */
  private async checkValidators(
    header: BlockHeader,
    parent: BlockHeader,
    opts: { seals?: boolean } = {},
  ): Promise<string | undefined> {
    const extra = this.decode(header);
    if (typeof extra === 'string') return extra;
    let validators: readonly string[];
    try {
      validators = await this.bft.validatorsAfter(parent);
    } catch (err) {
      return `validators after block ${parent.number} are unknown: ${err instanceof Error ? err.message : String(err)}`;
    }
    return checkValidatorRules(
      this.variant,
      header,
      extra,
      validators,
      this.bft.validators.isContractMode(header.number),
      opts,
    );
  }

  author(header: BlockHeader): Address {
    return header.coinbase;
  }

  /** The configured mining beneficiary, else the proposer (fees, block reward and COINBASE). */
  feeRecipient(header: BlockHeader): Address {
    const beneficiary = this.bft.schedule.at(header.number).miningBeneficiary;
    return beneficiary ? createAddressFromString(beneficiary) : header.coinbase;
  }

  calcDifficulty(_parent: BlockHeader, _timestamp: bigint): bigint {
    return BFT_DIFFICULTY;
  }

  blockReward(header: BlockHeader): bigint {
    return this.bft.schedule.at(header.number).blockReward;
  }

  /** A block extending the head wins; a rival of a block already imported at a height does not. */
  isBetterHead(candidate: ForkChoiceCandidate, head: ForkChoiceCandidate): boolean {
    return totalDifficultyWins(candidate, head);
  }

  async close(): Promise<void> {}
}

/**
 * The validator rules of a sealed header: the extraData list equals the validators (block-header
 * mode), the proposer (coinbase) is a validator, and at least ceil(2n/3) distinct validators sealed it.
 */
export function checkValidatorRules(
  variant: BftVariant,
  header: BlockHeader,
  extra: BftExtraData,
  validators: readonly string[],
  contractMode: boolean,
  opts: { seals?: boolean } = {},
): string | undefined {
  if (!contractMode && !sameList(extra.validators, validators))
    return `extraData validators [${extra.validators.join(', ')}] do not match the validators [${validators.join(', ')}]`;
  const proposer = header.coinbase.toString();
  if (!validators.includes(proposer)) return `proposer ${proposer} is not a validator`;
  if (opts.seals === false) return undefined;
  let committers: string[];
  try {
    committers = recoverCommitters(variant, header, extra);
  } catch (err) {
    return `invalid committed seal: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (new Set(committers).size !== committers.length) return 'a validator sealed the block twice';
  const needed = quorum(validators.length);
  if (committers.length < needed)
    return `${committers.length} committed seals, fewer than the quorum of ${needed}`;
  const outsider = committers.find((c) => !validators.includes(c));
  if (outsider) return `committed seal by ${outsider}, who is not a validator`;
  return undefined;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
