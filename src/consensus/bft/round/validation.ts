/**
 * The checks a BFT message must pass before it counts, as Besu makes them (IBFT 2.0 and QBFT differ
 * where noted). A message that fails is ignored with a log line; it never stops the round.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { logger } from '../../../log.js';
import type {
  BftVariant,
  CommitPayload,
  PreparePayload,
  ProposalMessage,
  RoundChangeMessage,
  RoundChangePayload,
  RoundId,
  Signed,
} from '../protocol/messages.js';
import { recoverAddress } from '../protocol/signing.js';
import type { BftChainOps } from './ops.js';

const log = logger('bft');

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => hex(a) === hex(b);
export const sameId = (a: RoundId, b: RoundId): boolean => a.height === b.height && a.round === b.round;

function distinctAuthors<P>(items: readonly Signed<P>[]): boolean {
  return new Set(items.map((i) => i.author)).size === items.length;
}

/** What the validators of one height share: validator set, quorum, proposers, block checks (cached). */
export class HeightContext {
  readonly validators: ReadonlySet<string>;
  readonly quorum: number;
  private readonly checked = new Map<string, Promise<string | undefined>>();

  constructor(
    readonly variant: BftVariant,
    readonly ops: BftChainOps,
    readonly parent: BlockHeader,
    validatorList: readonly string[],
    quorum: number,
    private readonly proposerFor: (round: number) => string,
  ) {
    this.validators = new Set(validatorList);
    this.quorum = quorum;
  }

  get height(): bigint {
    return this.parent.number + 1n;
  }

  proposer(round: number): string {
    return this.proposerFor(round);
  }

  /** Prepares needed for a prepared certificate: IBFT's proposer sends none. */
  get prepareQuorum(): number {
    return this.variant === 'ibft2' ? this.quorum - 1 : this.quorum;
  }

  /** Validates a block once per height, whatever message carries it. */
  checkBlock(block: Block): Promise<string | undefined> {
    const key = hex(this.ops.digest(block));
    let p = this.checked.get(key);
    if (!p) {
      p = this.ops.validateBlock(block, this.parent).catch((err: Error) => err.message);
      this.checked.set(key, p);
    }
    return p;
  }

  validPrepare(p: Signed<PreparePayload>, id: RoundId, digest: Uint8Array): boolean {
    if (!this.validators.has(p.author)) return reject('prepare', 'not from a validator');
    if (!sameId(p.payload.id, id)) return reject('prepare', 'not for the expected round');
    if (!sameBytes(p.payload.digest, digest)) return reject('prepare', 'digest differs from the proposal');
    if (this.variant === 'ibft2' && p.author === this.proposer(id.round))
      return reject('prepare', "sent by the round's proposer");
    return true;
  }

  validCommit(c: Signed<CommitPayload>, id: RoundId, digest: Uint8Array, commitDigest: Uint8Array): boolean {
    if (!this.validators.has(c.author)) return reject('commit', 'not from a validator');
    if (!sameId(c.payload.id, id)) return reject('commit', 'not for the expected round');
    if (!sameBytes(c.payload.digest, digest)) return reject('commit', 'digest differs from the proposal');
    let sealer: string;
    try {
      sealer = recoverAddress(c.payload.seal, commitDigest);
    } catch {
      return reject('commit', 'committed seal is not a signature');
    }
    if (sealer !== c.author) return reject('commit', 'committed seal not made by its sender');
    return true;
  }

  /** The signed round-change payload alone (also when carried inside a proposal). */
  validRoundChangePayload(rc: Signed<RoundChangePayload>): boolean {
    const p = rc.payload;
    if (!this.validators.has(rc.author)) return reject('round change', 'not from a validator');
    if (p.id.height !== this.height) return reject('round change', 'not for this height');
    if (this.variant === 'qbft' && p.id.round <= 0)
      return reject('round change', 'target round not positive');
    if (p.prepared && p.prepared.round >= p.id.round)
      return reject('round change', 'prepared round not before the target round');
    const cert = p.certificate;
    if (cert) {
      // IBFT: the prepared certificate must be a proposal of that round by its proposer and its prepares.
      const prop = cert.proposal;
      if (prop.payload.id.height !== this.height)
        return reject('round change', 'certificate for another height');
      if (prop.author !== this.proposer(prop.payload.id.round))
        return reject('round change', "certificate proposal not by its round's proposer");
      if (!distinctAuthors(cert.prepares))
        return reject('round change', 'certificate repeats a prepare author');
      if (cert.prepares.length < this.prepareQuorum)
        return reject('round change', 'certificate lacks prepares');
      if (!cert.prepares.every((pr) => this.validPrepare(pr, prop.payload.id, prop.payload.digest)))
        return false;
    }
    return true;
  }

  /** A round-change message: its payload and the prepared block and prepares beside it. */
  async validRoundChange(msg: RoundChangeMessage): Promise<boolean> {
    if (!this.validRoundChangePayload(msg.signed)) return false;
    const prepared = msg.signed.payload.prepared;
    if (!msg.block) {
      if (this.variant === 'qbft' && prepared)
        return reject('round change', 'prepared metadata without a block');
      if (this.variant === 'ibft2' && prepared)
        return reject('round change', 'prepared certificate without a block');
      return true;
    }
    if (!prepared) {
      if (this.variant === 'qbft') return reject('round change', 'block without prepared metadata');
      return true;
    }
    if (!sameBytes(this.ops.digest(msg.block), prepared.digest))
      return reject('round change', 'prepared hash does not match the block');
    // The signatures first: only a block a quorum prepared is worth executing.
    if (this.variant === 'qbft') {
      if (!distinctAuthors(msg.prepares)) return reject('round change', 'repeats a prepare author');
      if (msg.prepares.length < this.quorum) return reject('round change', 'too few prepares');
      const id = { height: this.height, round: prepared.round };
      if (!msg.prepares.every((p) => this.validPrepare(p, id, prepared.digest))) return false;
    }
    const reason = await this.checkBlock(msg.block);
    if (reason) return reject('round change', `prepared block invalid: ${reason}`);
    return true;
  }

  /** A proposal for `id` (Besu's proposal validator of the variant). */
  async validProposal(msg: ProposalMessage, id: RoundId): Promise<boolean> {
    const { signed, block } = msg;
    if (!sameId(signed.payload.id, id)) return reject('proposal', 'not for the expected round');
    if (signed.author !== this.proposer(id.round)) return reject('proposal', 'not from the round proposer');
    if (block.header.number !== id.height) return reject('proposal', 'block number is not the height');
    const digest = this.ops.digest(block);
    if (!sameBytes(digest, signed.payload.digest)) return reject('proposal', "digest is not the block's");
    if (this.variant === 'ibft2' && this.ops.roundOf(block) !== id.round)
      return reject('proposal', 'block round differs from the message round');
    const justified = this.variant === 'qbft' ? this.qbftJustified(msg, id) : this.ibftJustified(msg, id);
    if (!justified) return false;
    const reason = await this.checkBlock(block);
    if (reason) return reject('proposal', `block invalid: ${reason}`);
    return true;
  }

  private coinbaseIsAuthor(msg: ProposalMessage): boolean {
    if (msg.block.header.coinbase.toString().toLowerCase() !== msg.signed.author)
      return reject('proposal', "block coinbase is not the proposer's address");
    return true;
  }

  private qbftJustified(msg: ProposalMessage, id: RoundId): boolean {
    if (id.round === 0) {
      if (msg.roundChanges.length > 0 || msg.prepares.length > 0)
        return reject('proposal', 'round-0 proposal carries round changes or prepares');
      return this.coinbaseIsAuthor(msg);
    }
    if (!this.validJustifyingRoundChanges(msg.roundChanges, id)) return false;
    const metas = msg.roundChanges.map((r) => r.payload.prepared).filter((m) => m !== undefined);
    for (const m of metas)
      if (metas.some((o) => o.round === m.round && !sameBytes(o.digest, m.digest)))
        return reject('proposal', 'round changes disagree on a prepared round');
    const best = latestPrepared(msg.roundChanges);
    if (!best) {
      if (msg.prepares.length > 0) return reject('proposal', 'prepares without prepared round changes');
      return this.coinbaseIsAuthor(msg);
    }
    const old = this.ops.digest(this.ops.replaceRound(msg.block, best.round));
    if (!sameBytes(old, best.digest))
      return reject('proposal', 'does not re-propose the latest prepared block');
    if (!distinctAuthors(msg.prepares)) return reject('proposal', 'repeats a prepare author');
    if (msg.prepares.length < this.quorum) return reject('proposal', 'too few prepares');
    const pid = { height: id.height, round: best.round };
    return msg.prepares.every((p) => this.validPrepare(p, pid, best.digest));
  }

  private ibftJustified(msg: ProposalMessage, id: RoundId): boolean {
    if (id.round === 0) {
      if (msg.hasCertificate)
        return reject('proposal', 'round-0 proposal carries a round-change certificate');
      return true;
    }
    if (!msg.hasCertificate) return reject('proposal', 'no round-change certificate');
    if (!this.validJustifyingRoundChanges(msg.roundChanges, id)) return false;
    const best = latestPrepared(msg.roundChanges);
    if (!best) return true;
    const old = this.ops.digest(this.ops.replaceRound(msg.block, best.round));
    if (!sameBytes(old, best.digest))
      return reject('proposal', 'does not re-propose the latest prepared block');
    return true;
  }

  private validJustifyingRoundChanges(rcs: readonly Signed<RoundChangePayload>[], id: RoundId): boolean {
    if (!distinctAuthors(rcs)) return reject('proposal', 'round changes repeat an author');
    if (rcs.length < this.quorum) return reject('proposal', 'too few round changes');
    if (!rcs.every((r) => sameId(r.payload.id, id)))
      return reject('proposal', 'round changes target another round');
    return rcs.every((r) => this.validRoundChangePayload(r));
  }
}

/** The prepared round and digest of the round change that prepared latest. */
export function latestPrepared(
  rcs: readonly Signed<RoundChangePayload>[],
): { round: number; digest: Uint8Array } | undefined {
  let best: { round: number; digest: Uint8Array } | undefined;
  for (const r of rcs) {
    const p = r.payload.prepared;
    if (p && (!best || p.round > best.round)) best = p;
  }
  return best;
}

function reject(what: string, why: string): false {
  log.info(`Invalid ${what} message: ${why}`);
  return false;
}
