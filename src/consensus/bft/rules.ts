/**
 * BFT arithmetic shared by IBFT 2.0 and QBFT: the header constants, the quorum, proposer rotation and
 * the round timer.
 */

/** mixHash of every BFT block: "ctical byzantine fault tolerance" in ASCII. */
export const BFT_MIX_HASH = '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365';
export const BFT_DIFFICULTY = 1n;
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Committed seals (and prepare + proposal messages) a block needs: ceil(2n/3). */
export function quorum(validatorCount: number): number {
  return Math.ceil((2 * validatorCount) / 3);
}

/** Round-change messages that prove a later round is under way: floor((n-1)/3) + 1. */
export function futureRoundChangeQuorum(validatorCount: number): number {
  return Math.floor((validatorCount - 1) / 3) + 1;
}

/**
 * The proposer of `round` at the height after a block proposed by `previousProposer`, among
 * `validators` (sorted ascending). The proposer changes every block: one step from the previous
 * proposer, plus one per round. A previous proposer that is no longer a validator (or the genesis
 * block's zero coinbase) is replaced by the next validator above it, without the block's step.
 */
export function proposerForRound(
  previousProposer: string,
  validators: readonly string[],
  round: number,
): string {
  if (validators.length === 0) throw new Error('no validators');
  if (round < 0) throw new RangeError('round must not be negative');
  const prev = previousProposer.toLowerCase();
  let index = validators.indexOf(prev);
  let offset = round;
  if (index < 0) {
    const above = validators.findIndex((v) => v > prev);
    index = Math.max(above, 0);
  } else {
    offset += 1;
  }
  return validators[(index + offset) % validators.length] as string;
}

/** How long `round` lasts before a round change: the request timeout doubled for each round. */
export function roundTimeoutMs(requestTimeoutSeconds: number, round: number): number {
  return requestTimeoutSeconds * 1000 * 2 ** round;
}
