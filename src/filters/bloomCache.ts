/**
 * The log bloom cache: files of the canonical headers' 256-byte `logsBloom`, 100,000 blocks per file,
 * in `<data-path>/caches/logBloom-<N>.cache` (N = block / 100,000; block b at byte (b mod 100,000) × 256),
 * the same files Besu writes. Log queries read the blooms of full segments from these files and read
 * headers for the rest of their range.
 *
 * Maintenance (`--auto-log-bloom-caching-enabled`): every new canonical head writes its bloom into its
 * segment (after a reorg, the blocks from the common ancestor are rewritten and anything beyond the head
 * is cut off); a minute after start, missing full segments are generated in the background. Segments
 * are generated with `logBloom-current.cache` as a scratch file that is then renamed into place.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { ChainStore, NewHeadEvent } from '../chain/chainStore.js';
import { logger } from '../log.js';
import { BlockLogCache, storedBloom } from './blockLogCache.js';

export const BLOCKS_PER_SEGMENT = 100_000;
export const BLOOM_BYTES = 256;
export const SEGMENT_FILE_BYTES = BLOCKS_PER_SEGMENT * BLOOM_BYTES;
const METADATA_FILE = 'CACHE_METADATA.json';
const METADATA_VERSION = 3;
/** Blooms read from a file at a time (1 MiB). */
const READ_CHUNK_BLOCKS = 4096;

/** Besu's caching status object (admin_generateLogBloomCache). */
export interface CachingStatus {
  startBlock: string;
  endBlock: string;
  currentBlock: string;
  caching: boolean;
  requestAccepted: boolean;
}

export interface LogBloomCacheOptions {
  /** Delay before missing segments are generated in the background (Besu: one minute). */
  backfillDelayMs?: number;
  /** Delay before a repair starts (Besu: one second). */
  repairDelayMs?: number;
  /** Called as a generation job advances (for progress display). */
  onProgress?: (done: number, total: number) => void;
  /** Blocks per file; Besu's layout (and the default) is 100,000. Smaller only in tests. */
  blocksPerSegment?: number;
}

const hex = (n: bigint | number): string => `0x${n.toString(16)}`;
/** `latest` as an end block (Besu: Long.MAX_VALUE). */
export const LATEST_BLOCK = (1n << 63n) - 1n;

/** The logs bloom of a canonical block, from its stored header RLP (decoded only when the layout differs). */
export function canonicalBloom(chain: ChainStore, number: bigint): Uint8Array | undefined {
  const hash = chain.canonicalHash(number);
  if (!hash) return undefined;
  return storedBloom(chain, hash) ?? chain.getHeader(hash)?.logsBloom;
}

export class LogBloomCache {
  readonly dir: string;
  private readonly perSegment: number;
  private readonly S: bigint;
  private readonly fileBytes: number;
  private readonly log = logger('bloomcache');
  private caching = 0;
  private status = { startBlock: 0n, endBlock: 0n, currentBlock: 0n, requestAccepted: false };
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly onHead = (e: NewHeadEvent) => this.handleNewHead(e);
  private watching = false;
  private stopped = false;
  /** Segments known complete since start (Besu's cachedSegments). */
  private readonly checked = new Set<number>();
  private job: Promise<void> = Promise.resolve();
  /** Decoded log lists of recently queried blocks, shared by every log query of the node. */
  readonly logLists: BlockLogCache;

  constructor(
    private readonly chain: ChainStore,
    dataPath: string,
    private readonly opts: LogBloomCacheOptions = {},
  ) {
    this.dir = join(dataPath, 'caches');
    this.perSegment = opts.blocksPerSegment ?? BLOCKS_PER_SEGMENT;
    this.S = BigInt(this.perSegment);
    this.fileBytes = this.perSegment * BLOOM_BYTES;
    this.logLists = new BlockLogCache(chain);
  }

  /** Creates the directory, clears files of an older cache version, and (auto) starts maintenance. */
  start(auto: boolean): void {
    mkdirSync(this.dir, { recursive: true });
    const version = this.metadataVersion();
    if (version < METADATA_VERSION) {
      for (const f of readdirSync(this.dir)) rmSync(join(this.dir, f), { force: true });
      writeFileSync(join(this.dir, METADATA_FILE), JSON.stringify({ version: METADATA_VERSION }));
    }
    if (!auto) return;
    this.chain.on('newHead', this.onHead);
    this.watching = true;
    this.later(this.opts.backfillDelayMs ?? 60_000, () =>
      this.ensurePreviousSegments(this.chain.head().number, false),
    );
  }

  /** Stops maintenance; resolves when a running generation has stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.logLists.close();
    if (this.watching) this.chain.off('newHead', this.onHead);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.job;
  }

  private metadataVersion(): number {
    const path = join(this.dir, METADATA_FILE);
    if (!existsSync(path)) return 0;
    try {
      const v = (JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown }).version;
      return typeof v === 'number' ? v : 0;
    } catch {
      throw new Error(`Invalid metadata file ${path}`);
    }
  }

  private later(ms: number, work: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) work();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  segmentFile(segment: number | 'current'): string {
    return join(this.dir, `logBloom-${segment}.cache`);
  }

  /** True when the segment's file holds all 100,000 blooms. */
  isFullSegment(segment: number): boolean {
    try {
      return statSync(this.segmentFile(segment)).size === this.fileBytes;
    } catch {
      return false;
    }
  }

  get isCaching(): boolean {
    return this.caching > 0;
  }

  cachingStatus(): CachingStatus {
    const s = this.status;
    return {
      startBlock: hex(s.startBlock),
      endBlock: s.endBlock >= LATEST_BLOCK ? 'latest' : hex(s.endBlock),
      currentBlock: hex(s.currentBlock),
      caching: this.isCaching,
      requestAccepted: s.requestAccepted,
    };
  }

  // ------------------------------------------------------------------------------------------------
  // Queries

  /** Whether `from..to` reaches below the head's segment, the only place segment files can be full. */
  covers(from: bigint, _to: bigint): boolean {
    return from < (this.chain.head().number / this.S) * this.S;
  }

  /**
   * Numbers of the canonical blocks in `from..to` (inclusive) whose bloom passes `mayMatch`, ascending.
   * Full segments are read from their files, 4,096 blooms at a time; other blocks from their headers.
   */
  *candidates(
    from: bigint,
    to: bigint,
    mayMatch: (blooms: Uint8Array, offset: number) => boolean,
  ): Generator<bigint> {
    // Allocated only when a segment file is read: most queries cover recent blocks, whose segment
    // (the head's) has no full file yet.
    let chunk: Buffer | undefined;
    const head = this.chain.head().number;
    let n = from;
    while (n <= to) {
      const segment = Number(n / this.S);
      const segmentEnd = BigInt(segment + 1) * this.S - 1n;
      const last = segmentEnd < to ? segmentEnd : to;
      const fd = segmentEnd <= head ? this.openFullSegment(segment) : undefined;
      if (fd === undefined) {
        for (; n <= last; n++) {
          const bloom = canonicalBloom(this.chain, n);
          if (bloom === undefined) return;
          if (mayMatch(bloom, 0)) yield n;
        }
        continue;
      }
      chunk ??= Buffer.allocUnsafe(READ_CHUNK_BLOCKS * BLOOM_BYTES);
      try {
        let index = Number(n % this.S);
        const lastIndex = Number(last % this.S);
        const base = BigInt(segment) * this.S;
        while (index <= lastIndex) {
          const count = Math.min(READ_CHUNK_BLOCKS, lastIndex - index + 1);
          const bytes = count * BLOOM_BYTES;
          let got = 0;
          while (got < bytes) {
            const r = readSync(fd, chunk, got, bytes - got, index * BLOOM_BYTES + got);
            if (r === 0) break;
            got += r;
          }
          if (got < bytes)
            throw new Error(`log bloom cache file of segment ${segment} is shorter than expected`);
          for (let i = 0; i < count; i++) {
            if (mayMatch(chunk, i * BLOOM_BYTES)) yield base + BigInt(index + i);
          }
          index += count;
        }
      } finally {
        closeSync(fd);
      }
      n = last + 1n;
    }
  }

  private openFullSegment(segment: number): number | undefined {
    let fd: number;
    try {
      fd = openSync(this.segmentFile(segment), 'r');
    } catch {
      return undefined;
    }
    if (fstatSync(fd).size !== this.fileBytes) {
      closeSync(fd);
      return undefined;
    }
    return fd;
  }

  // ------------------------------------------------------------------------------------------------
  // Maintenance on new heads

  private handleNewHead(e: NewHeadEvent): void {
    if (this.isCaching) return;
    this.caching++;
    try {
      const head = e.head.header.number;
      // Blocks that became canonical, oldest first: after a reorg they start above the common ancestor.
      const first = e.added.length > 0 ? (e.added[0]?.header.number as bigint) : head;
      const file = this.segmentFile(Number(head / this.S));
      if (!existsSync(file) || !this.writeBlooms(file, first, head)) this.populateLatestSegment(head);
    } catch (err) {
      this.log.error({ err }, 'Cannot update the log bloom cache');
    } finally {
      this.caching--;
    }
  }

  /**
   * Writes the blooms of `from..to` (one segment) into its file and cuts off what lies beyond `to`.
   * False when the file does not reach `from` (a gap: the segment must be regenerated).
   */
  private writeBlooms(file: string, from: bigint, to: bigint): boolean {
    const segmentStart = (to / this.S) * this.S;
    const start = from < segmentStart ? segmentStart : from;
    const fd = openSync(file, 'r+');
    try {
      const have = fstatSync(fd).size / BLOOM_BYTES;
      if (Number(start - segmentStart) > have) return false;
      for (let n = start; n <= to; n++) {
        const bloom = canonicalBloom(this.chain, n);
        if (!bloom) return false;
        writeSync(fd, bloom, 0, BLOOM_BYTES, Number(n - segmentStart) * BLOOM_BYTES);
      }
      const valid = (Number(to - segmentStart) + 1) * BLOOM_BYTES;
      if (fstatSync(fd).size > valid) ftruncateSync(fd, valid);
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /** Writes the head's segment from its first block up to `head` (scratch file, then renamed). */
  private populateLatestSegment(head: bigint): void {
    const segment = Number(head / this.S);
    const start = BigInt(segment) * this.S;
    const scratch = this.segmentFile('current');
    const fd = openSync(scratch, 'w');
    try {
      this.fill(fd, start, head + 1n);
    } finally {
      closeSync(fd);
    }
    renameSync(scratch, this.segmentFile(segment));
  }

  /** Appends the blooms of `from..stop-1` to `fd` from position 0; stops at the first missing block. */
  private fill(fd: number, from: bigint, stop: bigint): bigint {
    const buf = Buffer.allocUnsafe(READ_CHUNK_BLOCKS * BLOOM_BYTES);
    let used = 0;
    let position = 0;
    let n = from;
    for (; n < stop; n++) {
      const bloom = canonicalBloom(this.chain, n);
      if (!bloom) break;
      buf.set(bloom, used);
      used += BLOOM_BYTES;
      this.status.currentBlock = n;
      if (used === buf.length) {
        writeSync(fd, buf, 0, used, position);
        position += used;
        used = 0;
      }
    }
    if (used > 0) writeSync(fd, buf, 0, used, position);
    return n;
  }

  // ------------------------------------------------------------------------------------------------
  // Generation jobs

  /**
   * Besu's requestCaching: accepted when `from < to` and no job runs; generates every segment whose
   * start is below `to`, from the one holding `from`, in the background.
   */
  requestCaching(from: bigint, to: bigint): CachingStatus {
    let accepted = false;
    if (from < to && !this.isCaching) {
      accepted = true;
      this.status.startBlock = from;
      this.status.endBlock = to;
      const start = from - (from % this.S);
      this.runJob(() => this.generate(start, to));
    }
    this.status.requestAccepted = accepted;
    return this.cachingStatus();
  }

  /** Generates (rewrites) the segments starting at `start`, `start + 100,000` … below `stop`. */
  async generate(start: bigint, stop: bigint): Promise<void> {
    const S = this.S;
    if (start % S !== 0n) throw new Error('Start block must be at the beginning of a file');
    if (this.isCaching) return;
    this.caching++;
    this.lastProgressLine = Date.now();
    try {
      mkdirSync(this.dir, { recursive: true });
      const head = this.chain.head().number;
      const end = stop < head + 1n ? stop : head + 1n;
      const total = end > start ? Number(end - start) : 0;
      for (let s = start; s < stop && s <= head && !this.stopped; s += S) {
        const segment = Number(s / S);
        const scratch = this.segmentFile('current');
        const fd = openSync(scratch, 'w');
        let reached: bigint;
        try {
          reached = s;
          // Yield between chunks so the node keeps answering while a segment is written.
          for (let from = s; from < s + S && !this.stopped; from += BigInt(READ_CHUNK_BLOCKS)) {
            const to = from + BigInt(READ_CHUNK_BLOCKS) < s + S ? from + BigInt(READ_CHUNK_BLOCKS) : s + S;
            reached = this.fillAt(fd, s, from, to);
            this.progress(Number(reached - start), total);
            if (reached < to) break;
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
        } finally {
          closeSync(fd);
        }
        if (this.stopped) {
          rmSync(scratch, { force: true });
          break;
        }
        renameSync(scratch, this.segmentFile(segment));
        if (reached === s + S) this.checked.add(segment);
      }
    } catch (err) {
      this.log.error({ err }, 'Log bloom cache generation failed');
    } finally {
      this.caching--;
    }
  }

  /** Writes the blooms of `from..to-1` at their offsets in a segment starting at `segmentStart`. */
  private fillAt(fd: number, segmentStart: bigint, from: bigint, to: bigint): bigint {
    const buf = Buffer.allocUnsafe(Number(to - from) * BLOOM_BYTES);
    let n = from;
    for (; n < to; n++) {
      const bloom = canonicalBloom(this.chain, n);
      if (!bloom) break;
      buf.set(bloom, Number(n - from) * BLOOM_BYTES);
      this.status.currentBlock = n;
    }
    const used = Number(n - from) * BLOOM_BYTES;
    if (used > 0) writeSync(fd, buf, 0, used, Number(from - segmentStart) * BLOOM_BYTES);
    return n;
  }

  private lastProgressLine = 0;

  /** Reports generation progress: to `onProgress` when given, else a log line every 5 s. */
  private progress(done: number, total: number): void {
    if (this.opts.onProgress) {
      this.opts.onProgress(done, total);
      return;
    }
    const now = Date.now();
    if (now - this.lastProgressLine < 5000) return;
    this.lastProgressLine = now;
    const pct = total > 0 ? Math.min(100, Math.floor((done * 100) / total)) : 100;
    this.log.info(
      `Generating log bloom cache: ${done}/${total} blocks (${pct}%), at block ${this.status.currentBlock}`,
    );
  }

  private runJob(work: () => Promise<void>): void {
    this.job = this.job.then(work, work);
  }

  /** Resolves when the queued generation jobs have finished (tests, CLI). */
  idle(): Promise<void> {
    return this.job;
  }

  /**
   * Generates every full segment below the one holding `blockNumber` that is missing or incomplete
   * (all of them when `force`), one second later (Besu's ensurePreviousSegmentsArePresent).
   */
  ensurePreviousSegments(blockNumber: bigint, force: boolean): void {
    if (this.isCaching) return;
    const run = async (): Promise<void> => {
      for (let segment = Number(blockNumber / this.S) - 1; segment >= 0; segment--) {
        if (this.stopped) return;
        if (!force && this.checked.has(segment)) continue;
        if (force || !this.isFullSegment(segment)) {
          const start = BigInt(segment) * this.S;
          await this.generate(start, start + this.S);
        }
        this.checked.add(segment);
      }
    };
    this.later(this.opts.repairDelayMs ?? 1000, () => this.runJob(run));
  }

  /** admin_logsRepairCache: `Started`, or `Already running` when a job is under way. */
  repair(blockNumber: bigint): 'Started' | 'Already running' {
    this.ensurePreviousSegments(blockNumber, true);
    return this.isCaching ? 'Already running' : 'Started';
  }

  /** Deletes the segment files touching `from..to` (nothing while a job runs, as Besu). */
  removeSegments(from: bigint, to: bigint): void {
    if (this.isCaching) return;
    const S = this.S;
    for (let segment = Number(from / S); segment <= Number(to / S); segment++) {
      this.checked.delete(segment);
      const file = this.segmentFile(segment);
      if (existsSync(file)) {
        rmSync(file, { force: true });
        this.log.info(`Deleted transaction log bloom cache file: ${file}`);
      }
    }
  }
}
