/**
 * Ethash block production: the child header's proof-of-work fields, Besu's timestamp rule, and the
 * seal — a nonce search in short slices that yield to the event loop, raced by solutions submitted
 * through eth_submitWork for the same work. The current work is what eth_getWork hands out.
 */
import { Block, type BlockHeader, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import { type Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import type { EngineHeaderFields, ProofOfWorkPuzzle, ProofOfWorkSealer } from '../../mining/engine.js';
import { boundary, boundaryBytes, bytesToBigIntBE, epochOf, SEARCH_BATCH, sealHash } from './algorithm.js';
import type { EpochCache, EthashCaches } from './caches.js';
import { WorkerSearch } from './searcher.js';

/**
 * How far a block's timestamp may run ahead of the clock. Besu's proof-of-work scheduler goes up to
 * the 15 s its header validation tolerates; Alder stops 5 s short of that, so that its blocks stay
 * valid for peers whose clocks run up to 5 s behind its own.
 */
const CLOCK_DRIFT_MS = 10_000;
/** Hashes per slice between two yields to the event loop (about 6 ms), in batches of SEARCH_BATCH. */
const SLICE = 16;
const NONCE_MASK = 0xffffffffffffffffn;

export type EthashWork = ProofOfWorkPuzzle;

interface OpenWork extends EthashWork {
  block: Block;
  difficultyTarget: bigint;
  run: (headerHash: Uint8Array, nonce: Uint8Array) => { mixDigest: Uint8Array; result: Uint8Array };
  finish: (sealed: Block | undefined) => void;
  /** Stops the search thread's job for this work (an aborted attempt). */
  cancelSearch?: () => void;
}

export interface EthashEngineOptions {
  coinbase: Address | undefined;
  extraData: Uint8Array;
  /** false: only external solutions (eth_submitWork) seal blocks. */
  localSearch?: boolean;
}

export class EthashEngine implements ProofOfWorkSealer {
  readonly name = 'ethash';
  /** The beneficiary; mining cannot start without one (miner_setCoinbase, --miner-coinbase). */
  coinbase: Address | undefined;
  extraData: Uint8Array;
  private work: OpenWork | undefined;
  private hashes = 0;
  private rateWindowStart = Date.now();
  private lastRate = 0;
  /** The nonce-search thread; null once known to be unavailable. */
  private searcher: WorkerSearch | null | undefined;

  constructor(
    private readonly difficulty: { calcDifficulty(parent: BlockHeader, timestamp: bigint): bigint },
    private readonly caches: EthashCaches,
    private readonly opts: EthashEngineOptions,
  ) {
    this.coinbase = opts.coinbase;
    this.extraData = opts.extraData;
  }

  childTimestamp(parent: BlockHeader, nowMs: number): bigint {
    const now = BigInt(Math.floor(nowMs / 1000));
    return now > parent.timestamp ? now : parent.timestamp + 1n;
  }

  /**
   * A block's timestamp may run up to CLOCK_DRIFT_MS ahead of the clock. That lead is
   * spent on blocks that carry transactions only: a block with nothing to include is sealed once its
   * timestamp is not ahead of the clock (one empty block per second), so the lead is there when
   * transactions arrive and blocks can follow each other as fast as they are built and sealed instead
   * of one per second.
   */
  nextBlockDelay(parent: BlockHeader, nowMs: number, hasPending = true): number {
    const wait = Number(parent.timestamp + 1n) * 1000 - (hasPending ? CLOCK_DRIFT_MS : 0) - nowMs;
    return Math.max(wait, 0);
  }

  childHeaderFields(parent: BlockHeader, timestamp: bigint): EngineHeaderFields {
    const coinbase = this.coinbase;
    if (!coinbase) throw new Error('Coinbase not set. Unable to start mining without a coinbase');
    const difficulty = this.difficulty.calcDifficulty(parent, timestamp);
    return { coinbase, difficulty, extraData: this.extraData };
  }

  /** The work being mined, for eth_getWork. */
  currentWork(): EthashWork | undefined {
    const w = this.work;
    return w && { headerHash: w.headerHash, seed: w.seed, target: w.target, number: w.number };
  }

  /** Hashes per second of the local search over the last measured window. */
  hashrate(): number {
    const elapsed = Date.now() - this.rateWindowStart;
    if (elapsed >= 1000) {
      this.lastRate = Math.round((this.hashes * 1000) / elapsed);
      this.hashes = 0;
      this.rateWindowStart = Date.now();
    }
    return this.lastRate;
  }

  /**
   * An external solution for the current work (eth_submitWork). True only when it seals the block
   * being mined; the block then goes to the chain through the producer.
   */
  submitWork(nonce: Uint8Array, headerHash: Uint8Array, mixDigest: Uint8Array): boolean {
    const w = this.work;
    if (!w || Buffer.compare(Buffer.from(w.headerHash), Buffer.from(headerHash)) !== 0) return false;
    const { mixDigest: mix, result } = w.run(w.headerHash, nonce);
    if (Buffer.compare(Buffer.from(mix), Buffer.from(mixDigest)) !== 0) return false;
    if (bytesToBigIntBE(result) > w.target) return false;
    w.finish(withSeal(w.block, nonce, mix));
    return true;
  }

  /** The search thread, started on first use; undefined where it cannot run (then the search runs here). */
  private workerSearch(): WorkerSearch | undefined {
    if (this.searcher === undefined) {
      this.searcher =
        WorkerSearch.create((count) => {
          this.hashes += count;
        }) ?? null;
    }
    return this.searcher?.usable ? this.searcher : undefined;
  }

  /** Ends the search thread, if one was started. */
  async close(): Promise<void> {
    const searcher = this.searcher;
    this.searcher = null;
    await searcher?.close();
  }

  /** `holdMs`: the local search starts that much later; eth_getWork hands out the work at once. */
  async seal(block: Block, signal: AbortSignal, holdMs = 0): Promise<Block | undefined> {
    const epoch = await this.caches.get(epochOf(block.header.number));
    if (signal.aborted) return undefined;
    const headerHash = sealHash(block.header.raw());
    const target = boundary(block.header.difficulty);
    return new Promise<Block | undefined>((resolve) => {
      let done = false;
      let hold: NodeJS.Timeout | undefined;
      const finish = (sealed: Block | undefined) => {
        if (done) return;
        done = true;
        clearTimeout(hold);
        if (this.work === work) this.work = undefined;
        signal.removeEventListener('abort', onAbort);
        resolve(sealed);
      };
      const onAbort = () => {
        work.cancelSearch?.();
        finish(undefined);
      };
      const work: OpenWork = {
        headerHash,
        seed: epoch.seed,
        target,
        number: block.header.number,
        block,
        difficultyTarget: target,
        run: (h, n) => epoch.hashimoto.run(h, n),
        finish,
      };
      this.work = work;
      signal.addEventListener('abort', onAbort);
      if (this.opts.localSearch === false) return;
      const start = () => {
        if (!done) this.searchLocally(work, epoch, () => done);
      };
      if (holdMs > 0) hold = setTimeout(start, holdMs);
      else start();
    });
  }

  /** The local nonce search for `work`: on the search thread, or in slices here without one. */
  private searchLocally(work: OpenWork, epoch: EpochCache, isDone: () => boolean): void {
    const { headerHash, target, block } = work;
    // Start from a random nonce so restarts and concurrent miners do not repeat each other's search.
    let nonce = BigInt(Math.floor(Math.random() * 2 ** 48)) << 16n;
    const bound = boundaryBytes(target);
    const search = () => {
      if (isDone()) return;
      for (let i = 0; i < SLICE; i += SEARCH_BATCH) {
        const hi = Number(nonce >> 32n);
        const lo = Number(nonce & 0xffffffffn);
        const found = epoch.hashimoto.searchBatch(headerHash, hi, lo, SEARCH_BATCH, bound);
        if (found >= 0) {
          this.hashes += found + 1;
          const nonceBytes = setLengthLeft(bigIntToBytes((nonce + BigInt(found)) & NONCE_MASK), 8);
          work.finish(withSeal(block, nonceBytes, epoch.hashimoto.resultAt(found).mixDigest));
          return;
        }
        this.hashes += SEARCH_BATCH;
        nonce = (nonce + BigInt(SEARCH_BATCH)) & NONCE_MASK;
      }
      setImmediate(search);
    };
    const searcher = this.workerSearch();
    if (!searcher) {
      setImmediate(search);
      return;
    }
    const job = searcher.search(epoch, headerHash, target, nonce);
    job.result.then((found) => {
      if (isDone() || found === undefined) return;
      if (found === 'failed') {
        setImmediate(search);
        return;
      }
      // Checked here too: a block is only ever sealed with a nonce this thread has verified.
      const { mixDigest, result } = epoch.hashimoto.run(headerHash, found.nonce);
      if (bytesToBigIntBE(result) <= target && Buffer.compare(mixDigest, found.mixDigest) === 0)
        work.finish(withSeal(block, found.nonce, mixDigest));
      else setImmediate(search);
    });
    const finishWork = work.finish;
    work.finish = (sealed) => {
      job.cancel();
      finishWork(sealed);
    };
    work.cancelSearch = () => job.cancel();
  }
}

/** The same block with nonce and mix hash filled in (header fields 13 and 14). */
function withSeal(block: Block, nonce: Uint8Array, mixHash: Uint8Array): Block {
  const raw = block.header.raw();
  raw[13] = mixHash;
  raw[14] = nonce;
  const header = createBlockHeaderFromBytesArray(raw, {
    common: block.common,
    skipConsensusFormatValidation: true,
  });
  return new Block(header, block.transactions, block.uncleHeaders, block.withdrawals);
}
