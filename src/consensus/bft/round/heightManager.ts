/**
 * Agreement on one height: rounds, their proposals, prepares and commits, round changes with prepared
 * certificates, and the import of the finalised block. One `HeightManager` lives per height; the
 * controller replaces it when the chain head moves.
 *
 * IBFT 2.0 and QBFT follow the same round logic with Besu's differences:
 * - QBFT starts round 0 when the block timer fires on every validator (the proposer may wait for
 *   `emptyblockperiodseconds` when it has no transactions); IBFT starts round 0 at once and only the
 *   proposer waits for the block timer.
 * - QBFT's proposer prepares its own proposal (prepared at `quorum` prepares); IBFT's does not (prepared
 *   at `quorum − 1`).
 * - A validator commits its own seal as soon as it accepts a proposal and sends it once prepared.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { logger } from '../../../log.js';
import type {
  BftCodec,
  BftMessage,
  CommitMessage,
  PrepareMessage,
  PreparePayload,
  ProposalMessage,
  ProposalPayload,
  RoundChangeMessage,
  RoundId,
  Signed,
} from '../protocol/messages.js';
import { sign } from '../protocol/signing.js';
import { type BftChainOps, type BftTiming, selectProposer } from './ops.js';
import { HeightContext, hex, sameId } from './validation.js';

const log = logger('bft');

/** What a height manager asks of its surroundings. */
export interface HeightEnv {
  codec: BftCodec;
  ops: BftChainOps;
  nodeKey: Uint8Array;
  localAddress: string;
  /** Sends a message this node made to the other validators. */
  multicast(msg: BftMessage): void;
  /** Arms the block timer for `id` to fire at `at` (ms since the epoch; at once when past). */
  startBlockTimer(id: RoundId, at: number): void;
  startRoundTimer(id: RoundId, ms: number): void;
  cancelRoundTimer(): void;
  now(): number;
  /** True while the node catches up with its peers: no round starts (the chain head will move). */
  paused(): boolean;
}

interface PreparedArtifacts {
  round: number;
  block: Block;
  prepares: Signed<PreparePayload>[];
  proposal: Signed<ProposalPayload>;
}

class RoundState {
  proposal: ProposalMessage | undefined;
  /** Digest of the proposal and the digest commit seals sign (the block with this round). */
  digest: Uint8Array | undefined;
  commitDigest: Uint8Array | undefined;
  prepares: Signed<PreparePayload>[] = [];
  commits: CommitMessage['signed'][] = [];
  prepared = false;
  committed = false;

  constructor(
    readonly id: RoundId,
    private readonly ctx: HeightContext,
  ) {}

  async setProposal(msg: ProposalMessage): Promise<boolean> {
    if (this.proposal) {
      if (hex(this.proposal.signed.payload.digest) !== hex(msg.signed.payload.digest))
        log.info(
          { round: this.id.round, author: msg.signed.author },
          'Ignoring a second, different proposal',
        );
      return false;
    }
    if (!(await this.ctx.validProposal(msg, this.id))) return false;
    if (this.proposal) return false;
    this.proposal = msg;
    this.digest = msg.signed.payload.digest;
    this.commitDigest = this.ctx.ops.digest(this.ctx.ops.replaceRound(msg.block, this.id.round));
    const d = this.digest;
    const cd = this.commitDigest;
    this.prepares = this.prepares.filter((p) => this.ctx.validPrepare(p, this.id, d));
    this.commits = this.commits.filter((c) => this.ctx.validCommit(c, this.id, d, cd));
    this.update();
    return true;
  }

  addPrepare(p: Signed<PreparePayload>): void {
    if (!this.digest || this.ctx.validPrepare(p, this.id, this.digest)) this.prepares.push(p);
    this.update();
  }

  addCommit(c: CommitMessage['signed']): void {
    if (
      !this.digest ||
      !this.commitDigest ||
      this.ctx.validCommit(c, this.id, this.digest, this.commitDigest)
    )
      this.commits.push(c);
    this.update();
  }

  /** Messages counted once per author: a repeated or equivocating sender adds nothing. */
  private distinct<P>(items: Signed<P>[]): Signed<P>[] {
    const seen = new Set<string>();
    return items.filter((i) => !seen.has(i.author) && seen.add(i.author));
  }

  private update(): void {
    this.prepared = !!this.proposal && this.distinct(this.prepares).length >= this.ctx.prepareQuorum;
    this.committed = !!this.proposal && this.distinct(this.commits).length >= this.ctx.quorum;
  }

  seals(): Uint8Array[] {
    return this.distinct(this.commits).map((c) => c.payload.seal);
  }

  preparedArtifacts(): PreparedArtifacts | undefined {
    if (!this.prepared || !this.proposal) return undefined;
    return {
      round: this.id.round,
      block: this.proposal.block,
      prepares: this.distinct(this.prepares),
      proposal: this.proposal.signed,
    };
  }
}

class Round {
  imported = false;

  constructor(
    readonly state: RoundState,
    private readonly h: HeightManager,
  ) {
    // setTimeout takes at most 2^31 − 1 ms (about 24 days); round 21 of a 1 s timeout gets there.
    const timeout = Math.min(h.timing.requestTimeoutSeconds * 1000 * 2 ** state.id.round, MAX_TIMER_MS);
    h.env.startRoundTimer(state.id, timeout);
    if (state.id.round >= 2) log.info({ round: state.id.round, expiresInMs: timeout }, 'Moved to round');
  }

  get id(): RoundId {
    return this.state.id;
  }

  /** Proposes `block` (made for this round), with the justification of a round change when there is one. */
  async propose(
    block: Block,
    justification?: { roundChanges: RoundChangeMessage['signed'][]; prepares: Signed<PreparePayload>[] },
  ): Promise<void> {
    const { env } = this.h;
    const proposal = env.codec.createProposal(env.nodeKey, this.id, block, justification);
    env.multicast(proposal);
    const accepted = await this.acceptProposal(proposal);
    if (accepted && env.codec.variant === 'qbft') this.sendPrepare();
  }

  async handleProposal(msg: ProposalMessage): Promise<void> {
    if (await this.acceptProposal(msg)) this.sendPrepare();
  }

  private sendPrepare(): void {
    const { env } = this.h;
    const digest = this.state.digest;
    if (!digest) return;
    const prepare = env.codec.createPrepare(env.nodeKey, this.id, digest);
    this.peerPrepared(prepare.signed);
    env.multicast(prepare);
  }

  handlePrepare(msg: PrepareMessage): void {
    this.peerPrepared(msg.signed);
  }

  handleCommit(msg: CommitMessage): void {
    const was = this.state.committed;
    this.state.addCommit(msg.signed);
    if (!was && this.state.committed) void this.h.importFinalised(this);
  }

  private commitSeal(): Uint8Array {
    return sign(this.state.commitDigest as Uint8Array, this.h.env.nodeKey);
  }

  private async acceptProposal(msg: ProposalMessage): Promise<boolean> {
    const wasPrepared = this.state.prepared;
    const wasCommitted = this.state.committed;
    if (!(await this.state.setProposal(msg))) return false;
    const { env } = this.h;
    const seal = this.commitSeal();
    const digest = this.state.digest as Uint8Array;
    if (!wasPrepared && this.state.prepared)
      env.multicast(env.codec.createCommit(env.nodeKey, this.id, digest, seal));
    this.state.addCommit(env.codec.createCommit(env.nodeKey, this.id, digest, seal).signed);
    if (!wasCommitted && this.state.committed) void this.h.importFinalised(this);
    return true;
  }

  private peerPrepared(p: Signed<PreparePayload>): void {
    const was = this.state.prepared;
    this.state.addPrepare(p);
    if (!was && this.state.prepared) {
      const { env } = this.h;
      env.multicast(
        env.codec.createCommit(env.nodeKey, this.id, this.state.digest as Uint8Array, this.commitSeal()),
      );
    }
  }
}

type Age = 'prior' | 'current' | 'future';

const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * Prepares and commits are kept for at most this many rounds ahead of the current one (a validator
 * that far behind joins by round changes, which carry what it needs); without a bound one validator
 * could make the others keep a round state for every round number.
 */
const MAX_FUTURE_ROUNDS = 10;

/** Collects round changes per target round; a quorum for a round is acted on once. */
class RoundChangeCollector {
  private readonly byRound = new Map<number, { msgs: Map<string, RoundChangeMessage>; actioned: boolean }>();

  add(msg: RoundChangeMessage, quorum: number): RoundChangeMessage[] | undefined {
    const r = msg.signed.payload.id.round;
    let s = this.byRound.get(r);
    if (!s) {
      s = { msgs: new Map(), actioned: false };
      this.byRound.set(r, s);
    }
    if (s.actioned) return undefined;
    if (!s.msgs.has(msg.signed.author)) s.msgs.set(msg.signed.author, msg);
    if (s.msgs.size < quorum) return undefined;
    s.actioned = true;
    return [...s.msgs.values()];
  }

  discardBefore(round: number): void {
    for (const r of [...this.byRound.keys()]) if (r < round) this.byRound.delete(r);
  }
}

export class HeightManager {
  readonly ctx: HeightContext;
  readonly timing: BftTiming;
  private current: Round | undefined;
  private readonly futureStates = new Map<number, RoundState>();
  private readonly roundChanges = new RoundChangeCollector();
  private latestPrepared: PreparedArtifacts | undefined;
  private stopped = false;

  constructor(
    readonly env: HeightEnv,
    readonly parent: BlockHeader,
    validators: readonly string[],
  ) {
    const { ops } = env;
    const prevProposer = ops.proposerOf(parent);
    this.timing = ops.timing(parent.number + 1n);
    const proposers = new Map<number, string>();
    this.ctx = new HeightContext(
      env.codec.variant,
      ops,
      parent,
      validators,
      Math.ceil((2 * validators.length) / 3),
      (round) => {
        let p = proposers.get(round);
        if (!p) {
          p = selectProposer(prevProposer, validators, round);
          proposers.set(round, p);
        }
        return p;
      },
    );
    // A node outside the validator set takes no part: no timers, no rounds, no messages.
    if (!this.isValidator) return;
    const id0 = { height: this.height, round: 0 };
    if (env.codec.variant === 'qbft') {
      env.startBlockTimer(id0, this.blockTimerExpiry());
    } else {
      this.current = new Round(new RoundState(id0, this.ctx), this);
      if (this.isProposer(0)) env.startBlockTimer(id0, this.blockTimerExpiry());
    }
  }

  get height(): bigint {
    return this.parent.number + 1n;
  }

  get round(): number | undefined {
    return this.current?.id.round;
  }

  get isValidator(): boolean {
    return this.ctx.validators.has(this.env.localAddress);
  }

  stop(): void {
    this.stopped = true;
  }

  private isProposer(round: number): boolean {
    return this.ctx.proposer(round) === this.env.localAddress;
  }

  private blockTimerExpiry(): number {
    const t = this.timing;
    if (t.blockPeriodMilliseconds && t.blockPeriodMilliseconds > 0)
      return this.env.now() + t.blockPeriodMilliseconds;
    return Number(this.parent.timestamp) * 1000 + t.blockPeriodSeconds * 1000;
  }

  private age(round: number): Age {
    const cur = this.current?.id.round ?? -1;
    return round > cur ? 'future' : round === cur ? 'current' : 'prior';
  }

  private startRound(round: number): Round {
    const buffered = this.futureStates.get(round);
    const state = buffered ?? new RoundState({ height: this.height, round }, this.ctx);
    for (const r of [...this.futureStates.keys()]) if (r <= round) this.futureStates.delete(r);
    this.current = new Round(state, this);
    this.roundChanges.discardBefore(round);
    return this.current;
  }

  async handleBlockTimer(id: RoundId): Promise<void> {
    if (this.stopped) return;
    const { env } = this;
    if (env.paused()) {
      env.startBlockTimer(id, env.now() + 500);
      return;
    }
    if (env.codec.variant === 'ibft2') {
      const cur = this.current;
      if (cur && sameId(id, cur.id) && this.isProposer(cur.id.round)) {
        const block = await env.ops.createBlock(this.parent, cur.id.round, this.timestamp());
        if (this.stopped || !this.isCurrent(cur)) return;
        await cur.propose(block);
      }
      return;
    }
    if (this.current) return;
    const round = this.startRound(0);
    if (!sameId(id, round.id) || !this.isProposer(0)) return;
    const block = await env.ops.createBlock(this.parent, 0, this.timestamp());
    if (this.stopped || !this.isCurrent(round)) return;
    const now = env.now();
    const emptyExpiry = (Number(this.parent.timestamp) + this.timing.emptyBlockPeriodSeconds) * 1000;
    if (block.transactions.length > 0 || this.timing.emptyBlockPeriodSeconds === 0 || now > emptyExpiry) {
      await round.propose(block);
      return;
    }
    // No transactions and the empty-block period still runs: try again at whichever comes first.
    env.startBlockTimer(id, Math.min(emptyExpiry, now + this.timing.blockPeriodSeconds * 1000));
    env.cancelRoundTimer();
    this.current = undefined;
  }

  private isCurrent(round: Round): boolean {
    return this.current === round;
  }

  private timestamp(): bigint {
    return BigInt(Math.round(this.env.now() / 1000));
  }

  async handleRoundExpiry(id: RoundId): Promise<void> {
    if (this.stopped || !this.current || !sameId(id, this.current.id)) return;
    if (this.env.paused()) {
      this.env.startRoundTimer(id, this.timing.requestTimeoutSeconds * 1000);
      return;
    }
    await this.roundChange(this.current.id.round + 1);
  }

  private async roundChange(round: number): Promise<void> {
    const cur = this.current;
    if (cur && cur.id.round >= round) return;
    const prepared = cur?.state.preparedArtifacts();
    if (prepared) this.latestPrepared = prepared;
    this.startRound(round);
    const { env } = this;
    const id = { height: this.height, round };
    const rc = env.codec.createRoundChange(env.nodeKey, id, this.latestPrepared);
    log.debug({ height: this.height.toString(), round }, 'Round change');
    env.multicast(rc);
    await this.handleRoundChange(rc);
  }

  async handleProposal(msg: ProposalMessage): Promise<void> {
    if (this.stopped) return;
    const round = msg.signed.payload.id.round;
    const age = this.age(round);
    if (age === 'prior') return;
    if (age === 'future') {
      // Checked in full before the round is joined (the block check is shared with the round's).
      if (!(await this.ctx.validProposal(msg, { height: this.height, round }))) return;
      if (this.age(round) === 'future') this.startRound(round);
    }
    const cur = this.current;
    if (cur && cur.id.round === round) await cur.handleProposal(msg);
  }

  handlePrepare(msg: PrepareMessage): void {
    if (this.stopped) return;
    const round = msg.signed.payload.id.round;
    const age = this.age(round);
    if (age === 'current') this.current?.handlePrepare(msg);
    else if (age === 'future') this.futureState(round)?.addPrepare(msg.signed);
  }

  handleCommit(msg: CommitMessage): void {
    if (this.stopped) return;
    const round = msg.signed.payload.id.round;
    const age = this.age(round);
    if (age === 'current') this.current?.handleCommit(msg);
    else if (age === 'future') this.futureState(round)?.addCommit(msg.signed);
  }

  private futureState(round: number): RoundState | undefined {
    if (round > (this.current?.id.round ?? 0) + MAX_FUTURE_ROUNDS) return undefined;
    let s = this.futureStates.get(round);
    if (!s) {
      s = new RoundState({ height: this.height, round }, this.ctx);
      this.futureStates.set(round, s);
    }
    return s;
  }

  async handleRoundChange(msg: RoundChangeMessage): Promise<void> {
    if (this.stopped) return;
    const target = msg.signed.payload.id.round;
    if (this.age(target) === 'prior') return;
    if (!(await this.ctx.validRoundChange(msg))) return;
    const quorum = this.roundChanges.add(msg, this.ctx.quorum);
    if (!quorum) return;
    log.debug({ height: this.height.toString(), round: target }, 'Round-change quorum');
    if (this.age(target) === 'future') this.startRound(target);
    if (!this.isProposer(target)) return;
    const cur = this.current ?? this.startRound(0);
    if (cur.id.round !== target) return;
    // Re-propose the block prepared latest, if any round change carries one; a new block otherwise.
    let best: RoundChangeMessage | undefined;
    for (const rc of quorum) {
      const p = rc.signed.payload.prepared;
      if (p && rc.block && (!best || p.round > (best.signed.payload.prepared?.round ?? -1))) best = rc;
    }
    const block = best?.block
      ? this.env.ops.replaceRound(best.block, target)
      : await this.env.ops.createBlock(this.parent, target, this.timestamp());
    if (this.stopped || !this.isCurrent(cur)) return;
    await cur.propose(block, {
      roundChanges: quorum.map((r) => r.signed),
      prepares: best ? best.prepares : [],
    });
  }

  /** Seals the committed block with the round's seals and imports it (once). */
  async importFinalised(round: Round): Promise<void> {
    if (round.imported || this.stopped) return;
    round.imported = true;
    const proposal = round.state.proposal as ProposalMessage;
    const sealed = this.env.ops.seal(proposal.block, round.id.round, round.state.seals());
    const log2 = { height: this.height.toString(), round: round.id.round };
    if (round.id.round > 0) log.info(log2, 'Importing block agreed after a round change');
    const failure = await this.env.ops.importBlock(sealed);
    if (failure) log.error({ ...log2, reason: failure }, 'Failed to import the agreed block');
  }
}
