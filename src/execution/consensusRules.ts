/**
 * What block import and block execution need from the consensus engine, declared here so that the
 * layers below `consensus/` depend on a contract rather than on an engine. Every engine under
 * `consensus/` implements it (through `ConsensusEngine`, which adds production and RPC namespaces).
 * Checks are split by what they need, so each one runs where its inputs are: a header alone, a header
 * against its parent, the seal.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { Address } from '@ethereumjs/util';
import { bytesEqual } from '../chain/chainStore.js';

/**
 * How the canonical head is chosen. `totalDifficulty`: the heaviest chain (proof of work, Clique).
 * `finality`: a block finalized by the validators is never reorganised away (IBFT 2.0, QBFT).
 * `external`: a consensus client names the head (after the merge).
 */
export type ForkChoiceRule = 'totalDifficulty' | 'finality' | 'external';

/** A block and its total difficulty, as fork choice compares them. */
export interface ForkChoiceCandidate {
  hash: Uint8Array;
  header: BlockHeader;
  totalDifficulty: bigint;
}

export interface ConsensusRules {
  /** For logs and errors: `ethash`, `clique`, `merge(ethash)` … */
  readonly name: string;
  readonly forkChoice: ForkChoiceRule;

  /** The engine's rules on a header on its own (layout of extraData, nonce, mixHash …); a reason when broken. */
  verifyHeaderAlone(header: BlockHeader): string | undefined;
  /**
   * The rules on a header against its parent: those every engine shares (`chain/validation.ts`) and the
   * engine's own (difficulty, block period, signer turn …); a reason when broken.
   */
  verifyHeader(header: BlockHeader, parent: BlockHeader): string | undefined;
  /**
   * The seal. Proof of work: the ethash nonce and mix hash (costly; `skipPowValidation` imports skip it).
   * Proof of authority checks its signature with the header rules and resolves undefined here.
   */
  verifySeal(header: BlockHeader): Promise<string | undefined>;
  /** True when `verifySeal` is a proof-of-work check that `--skip-pow-validation-enabled` may skip. */
  readonly sealIsProofOfWork: boolean;

  /** Who made the block: the PoW beneficiary, the Clique signer. */
  author(header: BlockHeader): Address;
  /** The difficulty a child of `parent` at `timestamp` must carry. */
  calcDifficulty(parent: BlockHeader, timestamp: bigint): bigint;
  /**
   * Who receives the priority fees and what COINBASE returns. The header's coinbase, except under
   * Clique, where it carries a vote and the signer is paid.
   */
  feeRecipient(header: BlockHeader): Address;
  /** Wei paid to `header.coinbase` at the end of the block (proof of work before the merge; else 0). */
  blockReward(header: BlockHeader): bigint;
  /**
   * The Common the EVM executes with when it must differ from the chain's (Clique: the same forks under a
   * consensus that pays `header.coinbase`, so the EVM runs at native speed with the signer put there).
   */
  readonly executionCommon?: Common;

  /**
   * The block as the rules read it, before any check: the merge by total difficulty re-reads a block
   * whose fork (Paris) follows from its parent's total difficulty, which the header alone does not carry.
   */
  reviewBlock?(block: Block): Block;

  /** Whether `candidate` replaces `head` as the canonical head. */
  isBetterHead(candidate: ForkChoiceCandidate, head: ForkChoiceCandidate): boolean;
}

/**
 * The total-difficulty rule: a block extending the head becomes head; otherwise the one with more total
 * difficulty wins (on equal work the lower block, as geth breaks ties: without a tie-break, Clique
 * signers that started together can sit on two branches of equal difficulty where nobody may seal
 * next), and a post-merge block (difficulty 0) that does not extend the head never wins by it.
 */
export function totalDifficultyWins(candidate: ForkChoiceCandidate, head: ForkChoiceCandidate): boolean {
  if (bytesEqual(candidate.header.parentHash, head.hash)) return true;
  if (candidate.header.difficulty === 0n) return false;
  return (
    candidate.totalDifficulty > head.totalDifficulty ||
    (candidate.totalDifficulty === head.totalDifficulty && candidate.header.number < head.header.number)
  );
}
