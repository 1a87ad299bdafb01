/**
 * Transactions reaching the pool while a block is built: the builder executes what is pending, then
 * each batch of arrivals as it comes, instead of waiting and then executing everything at once while
 * the requests arriving meanwhile wait. The block closes once the stream of arrivals pauses (no
 * transaction for QUIET_MS) after it is due, or at the end of its collection window: intake is not
 * held up by a whole block's execution.
 */
import type { PooledTx, TxPool } from '../txpool/pool.js';

/** How often a builder waiting for arrivals checks whether other importer work waits behind it. */
const CHECK_MS = 20;
/** No transaction for this long once the block is due: the stream paused, the block closes. */
export const QUIET_MS = 25;
/** No transaction for this long: the builder's `workAhead` runs (until done, while the pause lasts). */
const PAUSE_WORK_AFTER_MS = 5;
/**
 * One step of that work at most: requests that reached the socket meanwhile are read between two
 * steps (in one piece it held them up to 75 ms when a pause came thousands of transactions in).
 */
const WORK_SLICE_MS = 2;
/**
 * After that work, the thread takes what reached it meanwhile for this long before the pause may count
 * as the stream's end (requests that waited behind the work then arrive first).
 */
const AFTER_PAUSE_WORK_MS = 2;

/** When a block collecting arrivals closes (performance.now() times). */
export interface CollectWindow {
  /** Not before this (the engine's earliest time for the block). */
  due: number;
  /** At this time at the latest (not before `due`). */
  until: number;
  /** Milliseconds without an arrival that close a due block (QUIET_MS when absent). */
  quietMs?: number;
}

export class PoolArrivals {
  private entries: PooledTx[] = [];
  private wake: (() => void) | undefined;
  private lastArrival = performance.now();
  /** The pool's next sequence number when arrivals were last handed out. */
  seqRead: number;
  /** Milliseconds spent waiting for arrivals (the rest of a build's time is work). */
  waitedMs = 0;
  /**
   * Work of the block's close that can be done ahead (the builder brings the state tries up to what
   * the block executed so far), one step until `deadline` (performance.now()) per call; true once
   * done. Run once the stream pauses, which is when the block is likely to close, step after step
   * while nothing arrives, and from where it stopped at the next pause. (Run also every 100 ms while
   * arrivals kept coming, it cost more main-thread time per transaction than it saved at the close:
   * every run hashes the tries' upper nodes again.)
   */
  workAhead: ((deadline: number) => boolean) | undefined;
  private pauseWorkDone = false;
  private readonly onAdded = (entry: PooledTx) => {
    this.entries.push(entry);
    this.lastArrival = performance.now();
    this.pauseWorkDone = false;
    this.wake?.();
  };

  /**
   * Collects from now on. `giveWay` says when other work waits for the builder's queue (the block then
   * closes at once: an import goes first).
   */
  constructor(
    private readonly pool: Pick<TxPool, 'on' | 'off' | 'laneFrom' | 'nextSeq'>,
    private readonly window: CollectWindow,
    private readonly giveWay: () => boolean,
  ) {
    this.seqRead = pool.nextSeq;
    pool.on('added', this.onAdded);
  }

  close(): void {
    this.pool.off('added', this.onAdded);
    this.wake?.();
  }

  /**
   * The sender lanes of the next arrivals, each from its sender's next nonce after what the block
   * carries (`nextNonce`; the account nonce for a sender it does not carry): waits for arrivals, and
   * answers undefined when the block closes or `signal` aborted.
   */
  async next(
    nextNonce: ReadonlyMap<string, bigint>,
    signal?: AbortSignal,
  ): Promise<PooledTx[][] | undefined> {
    const { due, until, quietMs = QUIET_MS } = this.window;
    const back = performance.now();
    // A pause counts from when the builder came back for more: time it spent executing a batch is
    // not one, arrivals could not be taken in meanwhile.
    const quietFrom = () => Math.max(this.lastArrival, back);
    for (;;) {
      const now = performance.now();
      // Other work waiting for the builder's queue (an import) goes first: the block closes at once
      // (the producer holds its seal until it is due).
      if (signal?.aborted || now >= until || this.giveWay()) return undefined;
      if (now >= due && now - quietFrom() >= quietMs) return undefined;
      if (this.entries.length > 0) {
        // Requests that reached the socket meanwhile are taken in first (their senders are recovered
        // on another thread while this batch runs).
        await new Promise<void>((r) => setImmediate(r));
        break;
      }
      let pauseWork = Number.POSITIVE_INFINITY;
      if (this.workAhead !== undefined && !this.pauseWorkDone) {
        pauseWork = quietFrom() + PAUSE_WORK_AFTER_MS - now;
        if (pauseWork <= 0) {
          this.pauseWorkDone = this.workAhead(now + WORK_SLICE_MS);
          const rest = performance.now();
          if (this.pauseWorkDone) await this.sleep(AFTER_PAUSE_WORK_MS, signal);
          else await new Promise<void>((r) => setImmediate(r));
          this.waitedMs += performance.now() - rest;
          continue;
        }
      }
      const wait = now < due ? due - now : quietFrom() + quietMs - now;
      await this.sleep(Math.min(wait, until - now, CHECK_MS, pauseWork), signal);
      this.waitedMs += performance.now() - now;
    }
    const arrived = this.entries;
    this.entries = [];
    this.seqRead = this.pool.nextSeq;
    const lanes: PooledTx[][] = [];
    const seen = new Set<string>();
    for (const entry of arrived) {
      if (seen.has(entry.senderHex)) continue;
      seen.add(entry.senderHex);
      const lane = this.pool.laneFrom(entry.senderHex, nextNonce.get(entry.senderHex));
      if (lane.length > 0) lanes.push(lane);
    }
    return lanes;
  }

  private sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(ms, 0));
      this.wake = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
