/**
 * The block production loop shared by every engine: wait until the engine says the next block is due,
 * build on the head, seal, commit through the importer. A new head (imported or our own) abandons
 * the attempt in progress; the loop then starts over on the new head. Production pauses while the
 * node is syncing.
 */
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import type { BlockImporter } from '../execution/importer.js';
import type { PooledTx, TxPool } from '../txpool/pool.js';
import { type BlockBuilder, BuildAbortedError } from './builder.js';
import type { SealingEngine } from './engine.js';

export interface ProducerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ProducerOptions {
  /** True while the node synchronizes from peers; no blocks are produced then. */
  isSyncing?: () => boolean;
  now?: () => number;
  /**
   * The pool the builder takes transactions from. With it a block without transactions is built at
   * once but sealed when the engine's empty-block delay has passed, and started over as soon as a
   * transaction arrives.
   */
  pool?: Pick<TxPool, 'on' | 'off'>;
  /**
   * Proof of work: a seal search has no memory, so giving up the search for a block and starting on a
   * fuller one costs only the rebuild. While a block is sealed, once at least as many transactions
   * arrived as it carries (at least one), the attempt starts over with them, unless building it took
   * more than a quarter as long as a seal takes on average, or more than REBUILD_MAX_MS. Under a
   * steady stream a rebuild does not raise the rate (what the sealed block lacks goes into the next
   * one) while its execution is thrown away, on the thread that also takes transactions in; so only
   * blocks that are cheap to build are rebuilt (transactions sent close together still share a block).
   * Once the stream pauses (no transaction for QUIET_MS) while the block being sealed lacks some that
   * arrived, it is rebuilt with them if it is cheap to build by the same cost share (without the
   * REBUILD_MAX_MS bound), at most once per block: a seal search has no memory, so the arrivals would
   * otherwise wait for this seal and then a whole other one, while the rebuild throws away far less
   * work than that and no intake waits behind it.
   */
  rebuildWhileSealing?: boolean;
  /**
   * Build each block at once, up to FILL_AHEAD_MAX_MS before the engine says it is due, and execute the
   * pool's arrivals into it as they come (builder `collect`, arrivals.ts) instead of executing them
   * all at once when it is due: intake is not held up by a whole block's execution. The block closes
   * when it is due and the stream of arrivals has paused, or at most this many milliseconds after
   * the build started (or when due, if later). Needs `pool`.
   */
  collectMs?: number;
  /** Milliseconds without an arrival that close a due block while collecting (25 when absent). */
  collectQuietMs?: number;
}

/** The longest wait a block is built through (a longer one is slept first, see collectMs). */
const FILL_AHEAD_MAX_MS = 2000;

/**
 * A block is rebuilt with new arrivals only if building it took at most 1/this of a seal, and at most
 * REBUILD_MAX_MS (seals slow down when the machine is busy, which is when execution thrown away costs most).
 */
const REBUILD_COST_SHARE = 4;
const REBUILD_MAX_MS = 50;

/** No transaction for this long while a block is sealed: the stream has paused (see rebuildWhileSealing). */
const QUIET_MS = 200;

/** Weight of the newest seal duration in the running average. */
const SEAL_AVERAGE_WEIGHT = 0.25;

/** How long to wait before retrying after a failed attempt or while syncing. */
const RETRY_MS = 1000;

interface Sealing {
  txs: number;
  buildMs: number;
  fromSeq: number;
  attempt: AbortController;
  counted: boolean;
  quiet: NodeJS.Timeout | undefined;
}

export class BlockProducer {
  private running = false;
  private loop: Promise<void> | undefined;
  private attempt: AbortController | undefined;
  private wake: (() => void) | undefined;
  private readonly now: () => number;
  private readonly onHead = (_e: NewHeadEvent) => {
    this.attempt?.abort();
    this.wake?.();
  };
  /** The pool sequence number after the last transaction it took in. */
  private nextSeq = 0;
  /**
   * The block being sealed: its transaction count, build time, and the pool sequence number when the
   * builder read the pool (entries from there on arrived too late for it); `counted` once the arrivals
   * reached its size and it was kept, `quiet` while a pause in the stream is waited for.
   */
  private sealing: Sealing | undefined;
  /** When the pool last took a transaction in (performance.now()). */
  private lastArrival = 0;
  /**
   * A pause rebuilt the block being sealed since the last block was stored: at most one such rebuild
   * per block, so that a stream with gaps (a busy machine stalls senders too) does not have every
   * block built twice.
   */
  private rebuiltOnPause = false;
  private readonly onAdded = (entry: PooledTx) => {
    if (entry.seq >= this.nextSeq) this.nextSeq = entry.seq + 1;
    this.lastArrival = performance.now();
    this.checkRebuild();
  };

  /** Running average of how long sealing a block takes here (milliseconds; held seals not counted). */
  private sealMs = 300;

  private checkRebuild(): void {
    const s = this.sealing;
    if (!s || !this.opts.rebuildWhileSealing || this.nextSeq <= s.fromSeq) return;
    if (!s.counted && this.nextSeq - s.fromSeq >= Math.max(1, s.txs)) {
      if (s.txs === 0 || (s.buildMs * REBUILD_COST_SHARE <= this.sealMs && s.buildMs <= REBUILD_MAX_MS)) {
        this.rebuild(s);
        return;
      }
      s.counted = true;
    }
    if (s.quiet === undefined && !this.rebuiltOnPause && s.buildMs * REBUILD_COST_SHARE <= this.sealMs)
      this.waitForPause(s);
  }

  /** Rebuilds `s` once no transaction arrived for QUIET_MS, unless its seal ends first. */
  private waitForPause(s: Sealing): void {
    const wait = this.lastArrival + QUIET_MS - performance.now();
    s.quiet = setTimeout(
      () => {
        s.quiet = undefined;
        if (this.sealing !== s) return;
        if (performance.now() - this.lastArrival >= QUIET_MS) {
          this.rebuiltOnPause = true;
          this.rebuild(s);
        } else this.waitForPause(s);
      },
      Math.max(1, Math.ceil(wait)),
    );
    s.quiet.unref();
  }

  private rebuild(s: Sealing): void {
    s.attempt.abort();
    this.endSealing();
  }

  private endSealing(): void {
    const s = this.sealing;
    if (s?.quiet !== undefined) clearTimeout(s.quiet);
    this.sealing = undefined;
  }

  constructor(
    private readonly chain: ChainStore,
    private readonly importer: BlockImporter,
    private readonly builder: BlockBuilder,
    readonly engine: SealingEngine,
    private readonly log: ProducerLog,
    private readonly opts: ProducerOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.chain.on('newHead', this.onHead);
    this.opts.pool?.on('added', this.onAdded);
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.chain.off('newHead', this.onHead);
    this.opts.pool?.off('added', this.onAdded);
    this.endSealing();
    this.attempt?.abort();
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** Sleeps `ms`, cut short by a new head or stop. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.opts.isSyncing?.()) {
        await this.sleep(RETRY_MS);
        continue;
      }
      const parent = this.chain.headHeader();
      const delay = this.engine.nextBlockDelay(parent, this.now());
      if (delay === undefined) {
        await this.sleep(RETRY_MS);
        continue;
      }
      const collectMs = this.opts.pool ? this.opts.collectMs : undefined;
      if (delay > 0 && (collectMs === undefined || delay > FILL_AHEAD_MAX_MS)) {
        await this.sleep(collectMs === undefined ? delay : delay - FILL_AHEAD_MAX_MS);
        continue;
      }
      const attempt = new AbortController();
      this.attempt = attempt;
      try {
        const timestamp = this.engine.childTimestamp(parent, this.now() + delay);
        const t0 = performance.now();
        const built = await this.builder.build(
          parent,
          this.engine,
          timestamp,
          attempt.signal,
          collectMs === undefined
            ? {}
            : {
                collect: {
                  due: t0 + delay,
                  until: t0 + Math.max(delay, collectMs),
                  quietMs: this.opts.collectQuietMs,
                },
              },
        );
        if (attempt.signal.aborted || !this.running) continue;
        const t1 = performance.now();
        if (built.poolSeq !== undefined)
          this.sealing = {
            txs: built.txCount,
            buildMs: t1 - t0 - built.waitedMs,
            fromSeq: built.poolSeq,
            attempt,
            counted: false,
            quiet: undefined,
          };
        this.checkRebuild();
        if (attempt.signal.aborted) continue;
        // Its trie nodes are written while it is sealed (an empty block's are a few: they wait).
        if (built.txCount > 0) this.importer.writeAhead(built.execution);
        // A block without transactions waits for the engine's empty-block time (a transaction arriving
        // restarts it); a block that closed early (an import waits for the builder's queue) waits too.
        const hold =
          this.opts.pool && built.txCount === 0
            ? (this.engine.nextBlockDelay(parent, this.now(), false) ?? 0)
            : (this.engine.nextBlockDelay(parent, this.now()) ?? 0);
        const sealed = await this.engine.seal(built.block, attempt.signal, hold).finally(() => {
          if (this.sealing?.attempt === attempt) this.endSealing();
        });
        if (!sealed || !this.running) continue;
        const t2 = performance.now();
        if (hold === 0) this.sealMs += (t2 - t1 - this.sealMs) * SEAL_AVERAGE_WEIGHT;
        this.rebuiltOnPause = false;
        await this.importer.commitBuilt(sealed, built.execution);
        const t3 = performance.now();
        this.log.info(
          {
            number: sealed.header.number.toString(),
            hash: `0x${Buffer.from(sealed.hash()).toString('hex')}`,
            txs: built.txCount,
            gasUsed: sealed.header.gasUsed.toString(),
            buildMs: Math.round(t1 - t0),
            sealMs: Math.round(t2 - t1),
            commitMs: Math.round(t3 - t2),
          },
          'Produced block',
        );
      } catch (err) {
        if (err instanceof BuildAbortedError) continue;
        this.log.warn({ err }, 'Block production failed');
        await this.sleep(RETRY_MS);
      } finally {
        if (this.attempt === attempt) this.attempt = undefined;
      }
    }
  }
}
