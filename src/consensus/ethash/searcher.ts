/**
 * The main thread's side of the nonce search (searchWorker.ts): one thread per core (up to
 * MAX_THREADS), started on first use and fed each epoch's light cache once through shared memory.
 * Every thread searches the same work from its own nonce range; the first solution ends the job on
 * all of them. The threads run at a lower priority than the rest of the node, so while requests keep
 * the cores busy they take what is left, and when the node is idle but for a block to seal, the
 * whole machine seals it.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EpochCache } from './caches.js';
import type { SearchReport, SearchRequest } from './searchWorker.js';
import { SLOTS } from './wasm.js';

export interface Solution {
  nonce: Uint8Array;
  mixDigest: Uint8Array;
}

export interface SearchJob {
  /** The solution; undefined when cancelled, or `failed` when a thread is gone. */
  result: Promise<Solution | undefined | 'failed'>;
  cancel(): void;
}

/** Search threads at most, whatever the core count (each needs a scratch slot besides this thread's). */
const MAX_THREADS = Math.min(4, SLOTS - 1);
/** Distance between the start nonces of two threads (2^48 hashes: never reached by one search). */
const NONCE_STRIDE = 1n << 48n;
const NONCE_MASK = (1n << 64n) - 1n;

export class WorkerSearch {
  private readonly workers: Worker[];
  private loadedEpoch: EpochCache | undefined;
  private nextId = 1;
  private readonly jobs = new Map<number, (r: Solution | undefined | 'failed') => void>();
  private failed = false;

  /**
   * A worker search over `threads` threads (default: one per core; at most MAX_THREADS), or
   * undefined where the compiled worker is not there (sources run directly).
   */
  static create(onHashes: (count: number) => void, threads?: number): WorkerSearch | undefined {
    const url = new URL('./searchWorker.js', import.meta.url);
    if (!existsSync(fileURLToPath(url))) return undefined;
    const n = Math.min(Math.max(1, threads ?? availableParallelism()), MAX_THREADS);
    return new WorkerSearch(
      Array.from({ length: n }, () => new Worker(url)),
      onHashes,
    );
  }

  private constructor(workers: Worker[], onHashes: (count: number) => void) {
    this.workers = workers;
    const fail = () => {
      this.failed = true;
      for (const resolve of this.jobs.values()) resolve('failed');
      this.jobs.clear();
    };
    for (const worker of workers) {
      worker.unref();
      worker.on('message', (msg: SearchReport) => {
        if (msg.kind === 'hashes') {
          onHashes(msg.count);
          return;
        }
        const resolve = this.jobs.get(msg.id);
        if (!resolve) return;
        this.jobs.delete(msg.id);
        // The others stop searching a solved job.
        this.postAll({ kind: 'stop' });
        resolve({ nonce: new Uint8Array(msg.nonce), mixDigest: new Uint8Array(msg.mixDigest) });
      });
      worker.on('error', fail);
      worker.on('exit', fail);
    }
  }

  get usable(): boolean {
    return !this.failed;
  }

  /** Number of search threads. */
  get threads(): number {
    return this.workers.length;
  }

  search(epoch: EpochCache, headerHash: Uint8Array, target: bigint, start: bigint): SearchJob {
    if (this.failed) return { result: Promise.resolve('failed'), cancel: () => {} };
    if (this.loadedEpoch !== epoch) {
      // The cache's memory is shared as it is; thread i hashes in scratch slot i + 1 (0 is this thread's).
      this.workers.forEach((worker, i) => {
        worker.postMessage({
          kind: 'epoch',
          epoch: epoch.epoch,
          memory: epoch.hashimoto.memory,
          cacheBytes: epoch.hashimoto.cacheBytes,
          fullSize: epoch.fullSize,
          slot: i + 1,
        } satisfies SearchRequest);
      });
      this.loadedEpoch = epoch;
    }
    const id = this.nextId++;
    const result = new Promise<Solution | undefined | 'failed'>((resolve) => this.jobs.set(id, resolve));
    this.workers.forEach((worker, i) => {
      const from = (start + BigInt(i) * NONCE_STRIDE) & NONCE_MASK;
      worker.postMessage({
        kind: 'job',
        id,
        epoch: epoch.epoch,
        headerHash,
        target,
        start: from,
      } satisfies SearchRequest);
    });
    return {
      result,
      cancel: () => {
        const resolve = this.jobs.get(id);
        if (!resolve) return;
        this.jobs.delete(id);
        this.postAll({ kind: 'stop' });
        resolve(undefined);
      },
    };
  }

  private postAll(msg: SearchRequest): void {
    for (const worker of this.workers) worker.postMessage(msg);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
