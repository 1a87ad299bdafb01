/**
 * The BFT controller: one event loop per node that takes, in order, received messages, block and round
 * timer expiries and new chain heads, and hands them to the height manager of the height being agreed.
 *
 * As Besu's: received messages are bounded (`messagequeuelimit` waiting, `duplicatemessagelimit`
 * remembered to drop repeats); a message for a height at or below the chain head is dropped, one for a
 * future height is kept (`futuremessageslimit`, at most `futuremessagesmaxdistance` ahead) until the
 * chain gets there; a message for the current height from a validator is gossiped to the other
 * validators (neither back to the peer it came from nor to its author) and then handled. A message that
 * does not decode, or whose signature does not recover, is dropped and logged; nothing a peer sends
 * stops the loop.
 */
import type { BlockHeader } from '@ethereumjs/block';
import { logger } from '../../../log.js';
import { FutureMessageBuffer } from '../protocol/futureBuffer.js';
import type { BftCodec, BftMessage, RoundId } from '../protocol/messages.js';
import { MessageTracker } from '../protocol/tracker.js';
import { HeightManager } from './heightManager.js';
import type { BftChainOps } from './ops.js';
import { sameId } from './validation.js';

const log = logger('bft');

/** Besu's defaults for the genesis keys of the same names. */
export const BFT_QUEUE_DEFAULTS = {
  messageQueueLimit: 1000,
  duplicateMessageLimit: 100,
  futureMessagesLimit: 1000,
  futureMessagesMaxDistance: 10,
  gossipedHistoryLimit: 1000,
} as const;

export type BftQueueLimits = { -readonly [K in keyof typeof BFT_QUEUE_DEFAULTS]: number };

/** How the controller reaches the other validators. */
export interface BftTransport {
  /** Sends to every connected validator whose address is not in `exclude` (once per message). */
  send(code: number, data: Uint8Array, exclude: readonly string[]): void;
}

interface Received {
  code: number;
  data: Uint8Array;
  /** Address of the peer it came from (undefined: made here). */
  from: string | undefined;
  msg?: BftMessage;
}

type BftEvent =
  | { type: 'message'; m: Received }
  | { type: 'blockTimer'; id: RoundId }
  | { type: 'roundTimer'; id: RoundId }
  | { type: 'newHead'; header: BlockHeader };

export interface BftControllerOptions {
  codec: BftCodec;
  ops: BftChainOps;
  nodeKey: Uint8Array;
  localAddress: string;
  transport: BftTransport;
  limits: BftQueueLimits;
  /** The chain head now. */
  head(): BlockHeader;
  now?: () => number;
  /** True while the node is behind its peers (sync): rounds wait. */
  isSyncing?: () => boolean;
}

export class BftController {
  private manager: HeightManager | undefined;
  private readonly queue: BftEvent[] = [];
  private draining = false;
  private running = false;
  private readonly seen: MessageTracker;
  private readonly future: FutureMessageBuffer<Received>;
  private blockTimer: NodeJS.Timeout | undefined;
  private roundTimer: NodeJS.Timeout | undefined;
  private idle: Promise<void> = Promise.resolve();
  private resolveIdle: (() => void) | undefined;
  /** Counters for tests and metrics. */
  readonly stats = { received: 0, dropped: 0, invalid: 0, duplicates: 0, gossiped: 0 };

  constructor(private readonly opts: BftControllerOptions) {
    this.seen = new MessageTracker(opts.limits.duplicateMessageLimit);
    this.future = new FutureMessageBuffer(
      BigInt(opts.limits.futureMessagesMaxDistance),
      opts.limits.futureMessagesLimit,
      opts.head().number + 1n,
    );
  }

  get height(): bigint | undefined {
    return this.manager?.height;
  }

  get round(): number | undefined {
    return this.manager?.round;
  }

  /** The validators of the height being agreed (empty before the first). */
  get validators(): ReadonlySet<string> {
    return this.manager?.ctx.validators ?? new Set();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.push({ type: 'newHead', header: this.opts.head() });
  }

  /** Stops the loop and the timers; resolves when the event being handled is done. */
  async stop(): Promise<void> {
    this.running = false;
    this.manager?.stop();
    this.manager = undefined;
    this.clearTimers();
    this.queue.length = 0;
    await this.idle;
  }

  /** A message received from a peer (`from`: the peer's address). */
  receive(code: number, data: Uint8Array, from: string): void {
    if (!this.running) return;
    this.stats.received++;
    if (this.queue.length > this.opts.limits.messageQueueLimit) {
      this.stats.dropped++;
      log.warn('BFT message queue is full; dropping a message');
      return;
    }
    this.push({ type: 'message', m: { code, data, from } });
  }

  /** The chain head moved (an import here or a block from a peer). */
  newHead(header: BlockHeader): void {
    if (this.running) this.push({ type: 'newHead', header });
  }

  private push(e: BftEvent): void {
    this.queue.push(e);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    this.idle = new Promise((r) => {
      this.resolveIdle = r;
    });
    try {
      for (let e = this.queue.shift(); e; e = this.queue.shift()) {
        if (!this.running) break;
        try {
          await this.handle(e);
        } catch (err) {
          log.error({ err }, 'BFT event handling failed');
        }
      }
    } finally {
      this.draining = false;
      this.resolveIdle?.();
    }
  }

  private async handle(e: BftEvent): Promise<void> {
    switch (e.type) {
      case 'message':
        return this.handleReceived(e.m, true);
      case 'newHead':
        return this.handleNewHead(e.header);
      case 'blockTimer':
        if (this.manager && e.id.height === this.manager.height) await this.manager.handleBlockTimer(e.id);
        return;
      case 'roundTimer':
        if (this.manager && e.id.height === this.manager.height) await this.manager.handleRoundExpiry(e.id);
        return;
    }
  }

  private async handleNewHead(header: BlockHeader): Promise<void> {
    const cur = this.manager?.parent;
    if (cur) {
      if (header.number < cur.number) return;
      if (header.number === cur.number) return;
    }
    let validators: readonly string[];
    try {
      validators = await this.opts.ops.validatorsAfter(header);
    } catch (err) {
      log.error({ number: header.number.toString(), err: (err as Error).message }, 'Validators unknown');
      return;
    }
    this.manager?.stop();
    this.clearTimers();
    this.manager = new HeightManager(this.env(), header, validators);
    const height = this.manager.height;
    for (const m of this.future.take(height)) await this.handleReceived(m, false);
  }

  private async handleReceived(m: Received, fresh: boolean): Promise<void> {
    if (fresh && !this.seen.add(m.data)) {
      this.stats.duplicates++;
      return;
    }
    if (!m.msg) {
      try {
        m.msg = this.opts.codec.decode(m.code, m.data);
      } catch (err) {
        this.stats.invalid++;
        log.debug({ from: m.from, err: (err as Error).message }, 'Dropping an undecodable BFT message');
        return;
      }
    }
    const msg = m.msg;
    const id = msg.signed.payload.id;
    const manager = this.manager;
    if (!manager) return;
    if (id.height <= this.opts.head().number) return;
    if (id.height > manager.height) {
      this.future.add(id.height, m);
      return;
    }
    if (id.height < manager.height) return;
    const author = msg.signed.author;
    if (!manager.ctx.validators.has(author) || !manager.isValidator) {
      if (!manager.ctx.validators.has(author)) this.stats.invalid++;
      return;
    }
    // Gossip before handling, as Besu does: the other validators hear it even while a block executes.
    if (m.from !== undefined) {
      this.stats.gossiped++;
      this.opts.transport.send(m.code, m.data, [m.from, author]);
    }
    switch (msg.type) {
      case 'proposal':
        return manager.handleProposal(msg);
      case 'prepare':
        return manager.handlePrepare(msg);
      case 'commit':
        return manager.handleCommit(msg);
      case 'roundChange':
        return manager.handleRoundChange(msg);
    }
  }

  private clearTimers(): void {
    if (this.blockTimer) clearTimeout(this.blockTimer);
    if (this.roundTimer) clearTimeout(this.roundTimer);
    this.blockTimer = undefined;
    this.roundTimer = undefined;
  }

  private env() {
    const { codec, ops, nodeKey, localAddress, transport } = this.opts;
    const now = this.opts.now ?? Date.now;
    return {
      codec,
      ops,
      nodeKey,
      localAddress,
      now,
      paused: () => this.opts.isSyncing?.() ?? false,
      multicast: (msg: BftMessage) => {
        const data = codec.encode(msg);
        // Our own message coming back through gossip is a duplicate.
        this.seen.add(data);
        transport.send(codec.codeOf(msg), data, []);
      },
      startBlockTimer: (id: RoundId, at: number) => {
        if (this.blockTimer) clearTimeout(this.blockTimer);
        const fire = () => {
          this.blockTimer = undefined;
          if (this.running) this.push({ type: 'blockTimer', id });
        };
        const delay = at - now();
        if (delay <= 0) {
          // Queued behind whatever is being handled now.
          this.blockTimer = setTimeout(fire, 0);
        } else {
          this.blockTimer = setTimeout(fire, delay);
        }
        this.blockTimer.unref?.();
      },
      startRoundTimer: (id: RoundId, ms: number) => {
        if (this.roundTimer) clearTimeout(this.roundTimer);
        this.roundTimer = setTimeout(() => {
          this.roundTimer = undefined;
          if (this.running && this.manager && sameId(id, { height: this.manager.height, round: id.round }))
            this.push({ type: 'roundTimer', id });
        }, ms);
        this.roundTimer.unref?.();
      },
      cancelRoundTimer: () => {
        if (this.roundTimer) clearTimeout(this.roundTimer);
        this.roundTimer = undefined;
      },
    };
  }
}
