/**
 * Batched sender recovery off the main thread. `recover` queues one decoded transaction's bytes; a
 * batch goes to the recovery thread (recoveryWorker.ts) as one message once it holds BATCH
 * transactions, or at the end of the event-loop turn that started it, whether or not earlier batches
 * are still there. The thread works through them in order and answers each as it is done, so a burst
 * of requests read in one turn comes back in small batches: the main thread adds the first ones to
 * the pool and answers them while the thread recovers the rest. (A burst sent as one batch would
 * leave the main thread waiting for all of it, and its clients, answered together, would send their
 * next requests together: the two threads would take turns instead of working side by side.) Handing
 * a batch over costs the main thread a few microseconds, against ~60 µs per transaction recovered in
 * place.
 * Each caller gets the transaction's hash and the sender's public key and address back (no key when it
 * could not be recovered: the caller then recovers in place with the library, which also gives the
 * exact error).
 * Where the compiled worker is absent (sources run directly) the same batches run in place. The thread
 * starts on first use and does not keep the process alive.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  entrySize,
  OUTPUT_ADDRESS,
  OUTPUT_HASH,
  OUTPUT_PUBLIC_KEY,
  packEntry,
  RECOVERY_OUTPUT,
  RECOVERY_THREAD,
  type RecoveryReport,
  type RecoveryRequest,
  recoverBatch,
} from './recoveryWorker.js';

/**
 * Transactions per message at most: a full batch goes out at once, beside those on the thread (small
 * enough that the first answers of a burst come back after a few hundred microseconds of recovery).
 */
const BATCH = 8;
/** A batch's first buffer (it grows for larger transactions): a few transfers' worth. */
const BATCH_BYTES = 4096;

/** What the recovery thread works out for one transaction. */
export interface Recovered {
  /** keccak-256 of the transaction's bytes; absent when the thread was lost with the batch. */
  hash?: Uint8Array;
  /** The signer's 64-byte public key and address; absent when no key recovers. */
  publicKey?: Uint8Array;
  address?: Uint8Array;
}

type Resolve = (result: Recovered) => void;

interface Batch {
  input: Uint8Array;
  size: number;
  resolves: Resolve[];
}

export class SenderRecovery {
  private worker: Worker | null | undefined;
  private queue: Batch | undefined;
  private readonly inFlight = new Map<number, Resolve[]>();
  private nextId = 1;

  /**
   * The 64-byte public key that signed the transaction encoded as `raw` (canonical, as the library
   * decoded it; not a blob transaction's network form) with recovery id `recovery`; `chainId` is the
   * chain id an EIP-155 legacy signature covers (big-endian, minimal), empty otherwise.
   */
  recover(raw: Uint8Array, recovery: number, chainId: Uint8Array): Promise<Recovered> {
    let q = this.queue;
    if (!q) {
      q = { input: new Uint8Array(BATCH_BYTES), size: 0, resolves: [] };
      this.queue = q;
      // The batch goes once the requests read in this turn of the event loop have joined it (up to
      // BATCH of them), without waiting longer: a client waiting for each answer would otherwise wait
      // for a timer on every transaction.
      setImmediate(() => this.flush(q as Batch));
    }
    const need = q.size + entrySize(raw.length, chainId.length);
    if (need > q.input.length) {
      const grown = new Uint8Array(Math.max(need, q.input.length * 2));
      grown.set(q.input.subarray(0, q.size));
      q.input = grown;
    }
    q.size = packEntry(q.input, q.size, raw, recovery, chainId);
    const done = new Promise<Recovered>((resolve) => q.resolves.push(resolve));
    if (q.resolves.length >= BATCH) this.flush(q);
    return done;
  }

  private flush(q: Batch): void {
    if (this.queue !== q) return;
    this.queue = undefined;
    const input = q.input.slice(0, q.size);
    const worker = this.thread();
    if (!worker) {
      deliver(q.resolves, recoverBatch(input));
      return;
    }
    const id = this.nextId++;
    this.inFlight.set(id, q.resolves);
    worker.postMessage({ id, input } satisfies RecoveryRequest, [input.buffer]);
  }

  private thread(): Worker | undefined {
    if (this.worker === undefined) {
      const url = new URL('./recoveryWorker.js', import.meta.url);
      if (!existsSync(fileURLToPath(url))) {
        this.worker = null;
        return undefined;
      }
      const worker = new Worker(url, { workerData: RECOVERY_THREAD });
      worker.unref();
      worker.on('message', (msg: RecoveryReport) => {
        const resolves = this.inFlight.get(msg.id);
        this.inFlight.delete(msg.id);
        if (resolves) deliver(resolves, msg.output);
      });
      const fail = () => {
        if (this.worker === worker) this.worker = null;
        // Batches on the thread when it failed are recovered here.
        for (const resolves of this.inFlight.values()) for (const resolve of resolves) resolve(LOST);
        this.inFlight.clear();
        if (this.queue) this.flush(this.queue);
      };
      worker.on('error', fail);
      worker.on('exit', fail);
      this.worker = worker;
    }
    return this.worker ?? undefined;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}

/** The answer for a batch lost with its thread: nothing (the caller works it out). */
const LOST: Recovered = {};

function deliver(resolves: Resolve[], output: Uint8Array): void {
  for (let i = 0; i < resolves.length; i++) {
    const at = i * RECOVERY_OUTPUT;
    const hash = output.slice(at + OUTPUT_HASH, at + RECOVERY_OUTPUT);
    (resolves[i] as Resolve)(
      output[at] === 1
        ? {
            hash,
            publicKey: output.slice(at + OUTPUT_PUBLIC_KEY, at + OUTPUT_ADDRESS),
            address: output.slice(at + OUTPUT_ADDRESS, at + OUTPUT_HASH),
          }
        : { hash },
    );
  }
}
