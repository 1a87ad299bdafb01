/**
 * This node's pending signer proposals (`clique_propose` / `clique_discard`). They stay until
 * discarded; each block the node seals carries one of those still meaningful for the current signers
 * (add a non-signer, drop a signer), taken round-robin as Besu does.
 */
import type { SignerTally, Vote } from './snapshot.js';

export class VoteProposals {
  private readonly proposals = new Map<string, boolean>();
  private position = 0;

  /** `add` true proposes authorising `address`, false proposes dropping it. */
  propose(address: string, add: boolean): void {
    this.proposals.set(address, add);
  }

  discard(address: string): void {
    this.proposals.delete(address);
  }

  /** Candidate → true (add) / false (drop), in the order they were proposed. */
  all(): ReadonlyMap<string, boolean> {
    return this.proposals;
  }

  /** The vote for the next block sealed on top of `tally`, if any proposal applies to it. */
  nextVote(tally: SignerTally): Vote | undefined {
    const valid: Vote[] = [];
    for (const [candidate, add] of this.proposals) {
      if (add !== tally.isSigner(candidate)) valid.push({ candidate, add });
    }
    if (valid.length === 0) return undefined;
    this.position = (this.position + 1) % valid.length;
    return valid[this.position];
  }
}
