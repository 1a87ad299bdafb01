/**
 * The nonce search of the Ethash sealer, in worker threads (searcher.ts starts one per core):
 * hashimoto-light costs a fraction of a millisecond per nonce, and on the main thread it would compete
 * with JSON-RPC and the block builder. A thread receives an epoch's memory (the light cache, shared,
 * not copied, with a scratch slot of its own) and jobs (each thread its own start nonce); it hashes
 * nonces in batches that the kernel computes in lockstep, reports a solution, and the hashes it
 * tried for the hashrate. A new job or `stop` replaces the running one between two slices.
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { boundaryBytes, Hashimoto, SEARCH_BATCH } from './algorithm.js';

export type SearchRequest =
  | {
      kind: 'epoch';
      epoch: number;
      memory: WebAssembly.Memory;
      cacheBytes: number;
      fullSize: number;
      /** This thread's scratch slot in `memory`. */
      slot: number;
    }
  | { kind: 'job'; id: number; epoch: number; headerHash: Uint8Array; target: bigint; start: bigint }
  | { kind: 'stop' };

export type SearchReport =
  | { kind: 'found'; id: number; nonce: Uint8Array; mixDigest: Uint8Array }
  | { kind: 'hashes'; count: number };

/**
 * Hashes between two looks at the message queue. A hash costs about 0.4 ms in a batch, so a slice
 * ends within tens of milliseconds even at low priority on a busy machine: a replaced job (the block
 * rebuilt with new transactions) or a stop takes effect then.
 */
const SLICE = 8 * SEARCH_BATCH;
const port = parentPort;
if (!port) throw new Error('searchWorker runs as a worker thread');

/**
 * The search runs at a lower scheduling priority than the rest of the node (on Linux the nice value
 * is a per-thread attribute, and this sets only this thread's). A seal needs a fixed number of hashes
 * on average whenever they are computed, so on a busy machine the search takes the CPU that request
 * handling and block building leave rather than competing with them: blocks then carry more
 * transactions each instead of the node taking fewer in. Where it cannot be set, nothing changes.
 */
const SEARCH_NICE = 10;
try {
  setPriority(SEARCH_NICE);
} catch {
  // not permitted or not supported here: the search keeps the default priority
}

const epochs = new Map<number, Hashimoto>();
type Job = Extract<SearchRequest, { kind: 'job' }>;
/** The running job with its next nonce as two 32-bit halves and its boundary as 32 bytes. */
let current: { job: Job; hi: number; lo: number; boundary: Uint8Array } | undefined;
let running = false;

function nonceBytes(hi: number, lo: number): Uint8Array {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, hi);
  view.setUint32(4, lo);
  return out;
}

function slice(): void {
  const state = current;
  const hashimoto = state && epochs.get(state.job.epoch);
  if (!state || !hashimoto) {
    running = false;
    return;
  }
  for (let done = 0; done < SLICE; done += SEARCH_BATCH) {
    const found = hashimoto.searchBatch(
      state.job.headerHash,
      state.hi,
      state.lo,
      SEARCH_BATCH,
      state.boundary,
    );
    if (found >= 0) {
      let lo = state.lo + found;
      let hi = state.hi;
      if (lo > 0xffffffff) {
        lo -= 2 ** 32;
        hi = (hi + 1) >>> 0;
      }
      const { mixDigest } = hashimoto.resultAt(found);
      port?.postMessage({ kind: 'hashes', count: done + found + 1 } satisfies SearchReport);
      port?.postMessage({
        kind: 'found',
        id: state.job.id,
        nonce: nonceBytes(hi, lo),
        mixDigest,
      } satisfies SearchReport);
      current = undefined;
      running = false;
      return;
    }
    const lo = state.lo + SEARCH_BATCH;
    state.lo = lo >>> 0;
    if (lo > 0xffffffff) state.hi = (state.hi + 1) >>> 0;
  }
  port?.postMessage({ kind: 'hashes', count: SLICE } satisfies SearchReport);
  // Let the next job or a stop arrive between slices.
  setImmediate(slice);
}

port.on('message', (msg: SearchRequest) => {
  if (msg.kind === 'epoch') {
    epochs.clear();
    epochs.set(msg.epoch, Hashimoto.fromMemory(msg.memory, msg.cacheBytes, msg.fullSize, msg.slot));
    return;
  }
  if (msg.kind === 'stop') {
    current = undefined;
    return;
  }
  const start = msg.start & 0xffffffffffffffffn;
  current = {
    job: msg,
    hi: Number(start >> 32n),
    lo: Number(start & 0xffffffffn),
    boundary: boundaryBytes(msg.target),
  };
  if (!running) {
    running = true;
    setImmediate(slice);
  }
});
