/**
 * Batched sender recovery off the main thread. `recover` queues one decoded transaction's bytes; the
 * transactions queued while the previous batch is on the recovery thread (recoveryWorker.ts) go there
 * together as one message, as do those read in one turn of the event loop while none is there, so
 * under load batches grow instead of messages (each costs a thread wake-up both ways) multiplying.
 * Handing a batch over costs the main thread a few microseconds of CPU however large it is, against
 * ~25 µs per transaction recovered in place; on a machine whose cores are all busy the hand-off's
 * wall time includes the wake-up of the other thread (the scheduler may run it first), which is not
 * CPU the main thread spends, so batches always go to the thread while it runs.
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

/** Transactions per message at most (a full batch goes out at once, beside the one in flight). */
const MAX_BATCH = 512;

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
      q = { input: new Uint8Array(64 * 1024), size: 0, resolves: [] };
      this.queue = q;
      // Nothing on the thread: this batch goes once the requests read in this turn of the event loop
      // have joined it (a message costs a thread wake-up each way), without waiting longer: a few
      // clients each waiting for its answer would otherwise wait for a timer on every transaction.
      if (this.inFlight.size === 0) setImmediate(() => this.flush(q as Batch));
    }
    const need = q.size + entrySize(raw.length, chainId.length);
    if (need > q.input.length) {
      const grown = new Uint8Array(Math.max(need, q.input.length * 2));
      grown.set(q.input.subarray(0, q.size));
      q.input = grown;
    }
    q.size = packEntry(q.input, q.size, raw, recovery, chainId);
    const done = new Promise<Recovered>((resolve) => q.resolves.push(resolve));
    if (q.resolves.length >= MAX_BATCH) this.flush(q);
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
        if (this.queue) this.flush(this.queue);
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
