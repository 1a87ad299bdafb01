/**
 * The nonce search of the Ethash sealer, in worker threads (searcher.ts starts one per core):
 * hashimoto-light costs milliseconds per nonce, and on the main thread it competes with JSON-RPC and
 * the block builder. A thread receives an epoch's light cache (shared memory, not copied) and jobs
 * (each thread its own start nonce); it reports a solution, and the hashes it tried for the
 * hashrate. A new job or `stop` replaces the running one between two slices.
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { Hashimoto } from './algorithm.js';

export type SearchRequest =
  | { kind: 'epoch'; epoch: number; cache: SharedArrayBuffer; fullSize: number }
  | { kind: 'job'; id: number; epoch: number; headerHash: Uint8Array; target: bigint; start: bigint }
  | { kind: 'stop' };

export type SearchReport =
  | { kind: 'found'; id: number; nonce: Uint8Array; mixDigest: Uint8Array }
  | { kind: 'hashes'; count: number };

/**
 * Hashes between two looks at the message queue. A hash costs 2–5 ms, so a slice ends within tens of
 * milliseconds: a replaced job (the block rebuilt with new transactions) or a stop takes effect then,
 * instead of after a quarter second of wasted search.
 */
const SLICE = 8;
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
let current: Extract<SearchRequest, { kind: 'job' }> | undefined;
let running = false;

function nonceBytes(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  let v = n;
  for (let i = 7; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function greaterThanTarget(result: Uint8Array, target: bigint): boolean {
  let v = 0n;
  for (let i = 0; i < result.length; i++) v = (v << 8n) | BigInt(result[i] as number);
  return v > target;
}

function slice(): void {
  const job = current;
  const hashimoto = job && epochs.get(job.epoch);
  if (!job || !hashimoto) {
    running = false;
    return;
  }
  let nonce = job.start;
  for (let i = 0; i < SLICE; i++) {
    const bytes = nonceBytes(nonce);
    const { mixDigest, result } = hashimoto.run(job.headerHash, bytes);
    nonce = (nonce + 1n) & 0xffffffffffffffffn;
    if (!greaterThanTarget(result, job.target)) {
      port?.postMessage({ kind: 'hashes', count: i + 1 } satisfies SearchReport);
      port?.postMessage({ kind: 'found', id: job.id, nonce: bytes, mixDigest } satisfies SearchReport);
      current = undefined;
      running = false;
      return;
    }
  }
  job.start = nonce;
  port?.postMessage({ kind: 'hashes', count: SLICE } satisfies SearchReport);
  // Let the next job or a stop arrive between slices.
  setImmediate(slice);
}

port.on('message', (msg: SearchRequest) => {
  if (msg.kind === 'epoch') {
    epochs.clear();
    epochs.set(msg.epoch, new Hashimoto(new Uint32Array(msg.cache), msg.fullSize));
    return;
  }
  if (msg.kind === 'stop') {
    current = undefined;
    return;
  }
  current = msg;
  if (!running) {
    running = true;
    setImmediate(slice);
  }
});
