/**
 * This node's validator vote proposals (ibft_/qbft_proposeValidatorVote, discardValidatorVote,
 * getPendingVotes). When the node proposes a block it casts one of the proposals it has not cast
 * already — an add for a non-validator it has not voted to add, a drop for a validator it has not voted
 * to drop, or a reversal of its outstanding vote — rotating through them from block to block.
 */
import { hexToBytes } from '@ethereumjs/util';
import { hashMapOrder, javaBytesHash } from '../../util/javaOrder.js';
import type { VoteTally } from './validators.js';

export interface CastVote {
  recipient: string;
  add: boolean;
}

export class VoteProposals {
  /** Lowercase address → true (add) / false (drop), in the order proposed. */
  private readonly proposals = new Map<string, boolean>();
  private position = 0;

  propose(address: string, add: boolean): void {
    this.proposals.set(address.toLowerCase(), add);
  }

  discard(address: string): void {
    this.proposals.delete(address.toLowerCase());
  }

  all(): ReadonlyMap<string, boolean> {
    return this.proposals;
  }

  /** The vote `local` puts in its next block on top of `tally`; undefined when none is due. */
  nextVote(local: string, tally: VoteTally): CastVote | undefined {
    const me = local.toLowerCase();
    const due: CastVote[] = [];
    // In the order Besu's map of proposals iterates, so the same vote is cast first.
    const order = hashMapOrder([...this.proposals.keys()], (a) =>
      javaBytesHash(hexToBytes(a as `0x${string}`)),
    );
    for (const recipient of order) {
      const add = this.proposals.get(recipient) as boolean;
      const votedAdd = tally.votersFor(recipient, true).has(me);
      const votedDrop = tally.votersFor(recipient, false).has(me);
      const isValidator = tally.isValidator(recipient);
      const notCast = add
        ? (!isValidator && !votedAdd) || votedDrop
        : (isValidator && !votedDrop) || votedAdd;
      if (notCast) due.push({ recipient, add });
    }
    if (due.length === 0) return undefined;
    this.position = (this.position + 1) % due.length;
    return due[this.position];
  }
}
