/**
 * The main thread's side of the nonce-search worker (searchWorker.ts): one thread per node, fed each
 * epoch's light cache once through shared memory, one job at a time.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EpochCache } from './caches.js';
import type { SearchReport, SearchRequest } from './searchWorker.js';

export interface Solution {
  nonce: Uint8Array;
  mixDigest: Uint8Array;
}

export interface SearchJob {
  /** The solution; undefined when cancelled, or `failed` when the thread is gone. */
  result: Promise<Solution | undefined | 'failed'>;
  cancel(): void;
}

export class WorkerSearch {
  private readonly worker: Worker;
  private readonly shared = new WeakMap<EpochCache, SharedArrayBuffer>();
  private loadedEpoch: EpochCache | undefined;
  private nextId = 1;
  private readonly jobs = new Map<number, (r: Solution | undefined | 'failed') => void>();
  private failed = false;

  /** A worker search, or undefined where the compiled worker is not there (sources run directly). */
  static create(onHashes: (count: number) => void): WorkerSearch | undefined {
    const url = new URL('./searchWorker.js', import.meta.url);
    if (!existsSync(fileURLToPath(url))) return undefined;
    return new WorkerSearch(new Worker(url), onHashes);
  }

  private constructor(worker: Worker, onHashes: (count: number) => void) {
    this.worker = worker;
    worker.unref();
    worker.on('message', (msg: SearchReport) => {
      if (msg.kind === 'hashes') onHashes(msg.count);
      else {
        const resolve = this.jobs.get(msg.id);
        this.jobs.delete(msg.id);
        resolve?.({ nonce: new Uint8Array(msg.nonce), mixDigest: new Uint8Array(msg.mixDigest) });
      }
    });
    const fail = () => {
      this.failed = true;
      for (const resolve of this.jobs.values()) resolve('failed');
      this.jobs.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
  }

  get usable(): boolean {
    return !this.failed;
  }

  search(epoch: EpochCache, headerHash: Uint8Array, target: bigint, start: bigint): SearchJob {
    if (this.failed) return { result: Promise.resolve('failed'), cancel: () => {} };
    if (this.loadedEpoch !== epoch) {
      let sab = this.shared.get(epoch);
      if (!sab) {
        sab = new SharedArrayBuffer(epoch.cache.byteLength);
        new Uint32Array(sab).set(epoch.cache);
        this.shared.set(epoch, sab);
      }
      this.post({ kind: 'epoch', epoch: epoch.epoch, cache: sab, fullSize: epoch.fullSize });
      this.loadedEpoch = epoch;
    }
    const id = this.nextId++;
    const result = new Promise<Solution | undefined | 'failed'>((resolve) => this.jobs.set(id, resolve));
    this.post({ kind: 'job', id, epoch: epoch.epoch, headerHash, target, start });
    return {
      result,
      cancel: () => {
        const resolve = this.jobs.get(id);
        if (!resolve) return;
        this.jobs.delete(id);
        this.post({ kind: 'stop' });
        resolve(undefined);
      },
    };
  }

  private post(msg: SearchRequest): void {
    this.worker.postMessage(msg);
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
