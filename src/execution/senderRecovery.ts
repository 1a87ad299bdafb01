/**
 * Sender recovery for blocks about to be imported, on a worker thread: the secp256k1 public key
 * recovery of every transaction of a block runs there while the import thread executes the block
 * before it, and the keys land in each transaction's own cache, where the library's signature check
 * and `getSenderAddress` find them.
 *
 * Only the recovery itself moves: the message hash, the EIP-155 recovery id and the high-s rule are
 * computed here exactly as the library computes them, and a transaction whose signature is not
 * plainly valid (high s, a bad v, a failed recovery) is left uncached, so the library checks it
 * again and refuses it with its own message.
 *
 * The worker holds no state, so one serves the whole process (`sharedSenderRecovery`): every chain a
 * process opens (tests open hundreds) shares it, and it never keeps the process alive while idle.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Block } from '@ethereumjs/block';
import { Capability, type TypedTransaction } from '@ethereumjs/tx';
import { bigIntToUnpaddedBytes } from '@ethereumjs/util';
import { signingHash, transactionEncodings } from '../chain/blockEncoding.js';
import { logger } from '../log.js';

const log = logger('import');

/** Blocks with fewer transactions recover on the import thread (a round trip costs more). */
const MIN_TRANSACTIONS = 4;
const SECP256K1_N_DIV_2 = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
/** One request entry: message hash (32), r ‖ s (64), recovery id (1). */
const ENTRY = 97;
/** One answer entry: 1 when recovered, then the 64-byte public key. */
const ANSWER = 65;

/** The worker: plain CommonJS (an evaluated worker), the same native secp256k1 the node loads. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const secp = require(workerData.secp256k1);
parentPort.on('message', ({ id, input, count }) => {
  const out = new Uint8Array(count * ${ANSWER});
  for (let i = 0; i < count; i++) {
    const at = i * ${ENTRY};
    try {
      const pub = secp.ecdsaRecover(input.subarray(at + 32, at + 96), input[at + 96], input.subarray(at, at + 32), false);
      out[i * ${ANSWER}] = 1;
      out.set(pub.subarray(1), i * ${ANSWER} + 1);
    } catch {}
  }
  parentPort.postMessage({ id, out }, [out.buffer]);
});
`;

interface Request {
  txs: TypedTransaction[];
  resolve: () => void;
}

export class SenderRecovery {
  private worker: Worker | undefined;
  private failed = false;
  private nextId = 0;
  private readonly requests = new Map<number, Request>();

  /**
   * Starts recovering the senders of `block`'s transactions; the promise resolves once their keys
   * are cached (or left to the library). Never rejects.
   */
  prefetch(block: Block): Promise<void> {
    const txs = block.transactions;
    if (txs.length < MIN_TRANSACTIONS || this.failed) return Promise.resolve();
    const input = new Uint8Array(txs.length * ENTRY);
    const chosen: TypedTransaction[] = [];
    try {
      // The block's encodings, computed once per block (its root, body and hashes use them too).
      const encodings = transactionEncodings(block);
      for (let i = 0; i < txs.length; i++) {
        if (!recoveryInput(txs[i], encodings[i], input, chosen.length * ENTRY)) continue;
        chosen.push(txs[i]);
      }
    } catch {
      // A transaction the library itself cannot hash: it refuses it during execution.
      return Promise.resolve();
    }
    if (chosen.length === 0) return Promise.resolve();
    const worker = this.start();
    if (worker === undefined) return Promise.resolve();
    const id = this.nextId++;
    return new Promise<void>((resolve) => {
      this.requests.set(id, { txs: chosen, resolve });
      if (this.requests.size === 1) worker.ref();
      worker.postMessage({ id, input, count: chosen.length }, [input.buffer]);
    });
  }

  /** Stops the worker; pending requests resolve (their transactions recover on the import thread). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failed = true;
    this.settleAll();
    await worker?.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker !== undefined) return this.worker;
    try {
      const require = createRequire(import.meta.url);
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { secp256k1: require.resolve('secp256k1') },
      });
      worker.on('message', ({ id, out }: { id: number; out: Uint8Array }) => this.answer(id, out));
      worker.on('error', (err) => {
        log.warn({ err }, 'Sender recovery worker failed; senders recover on the import thread');
        this.failed = true;
        this.worker = undefined;
        this.settleAll();
      });
      // Only pending requests keep the process alive.
      worker.unref();
      this.worker = worker;
      return worker;
    } catch (err) {
      log.warn({ err }, 'Sender recovery worker did not start; senders recover on the import thread');
      this.failed = true;
      return undefined;
    }
  }

  private answer(id: number, out: Uint8Array): void {
    const request = this.requests.get(id);
    if (request === undefined) return;
    this.requests.delete(id);
    if (this.requests.size === 0) this.worker?.unref();
    const { txs } = request;
    for (let i = 0; i < txs.length; i++) {
      if (out[i * ANSWER] !== 1) continue;
      const cache = (txs[i] as unknown as { cache: { senderPubKey?: Uint8Array } }).cache;
      cache.senderPubKey ??= out.slice(i * ANSWER + 1, (i + 1) * ANSWER);
    }
    request.resolve();
  }

  private settleAll(): void {
    for (const r of this.requests.values()) r.resolve();
    this.requests.clear();
  }
}

/**
 * Writes `tx`'s recovery input at `at`, as the library's `getSenderPublicKey` and Alder's `ecrecover`
 * derive it (the signed hash taken from `encoded`, the transaction's encoding); false for a
 * transaction to leave to the library (already recovered, unsigned, not frozen so never cached,
 * high s, a v that names no recovery id, an oversized r or s).
 */
function recoveryInput(tx: TypedTransaction, encoded: Uint8Array, into: Uint8Array, at: number): boolean {
  const t = tx as unknown as { cache: { senderPubKey?: Uint8Array } };
  if (t.cache.senderPubKey !== undefined || !Object.isFrozen(tx)) return false;
  const { v, r, s } = tx;
  if (v === undefined || r === undefined || s === undefined) return false;
  if (tx.common.gteHardfork('homestead') && s > SECP256K1_N_DIV_2) return false;
  const chainId = tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined;
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (2n * chainId + 35n);
  if (recovery !== 0n && recovery !== 1n) return false;
  const rb = bigIntToUnpaddedBytes(r);
  const sb = bigIntToUnpaddedBytes(s);
  if (rb.length > 32 || sb.length > 32) return false;
  into.set(signingHash(tx, encoded), at);
  into.set(rb, at + 64 - rb.length);
  into.set(sb, at + 96 - sb.length);
  into[at + 96] = Number(recovery);
  return true;
}

let shared: SenderRecovery | undefined;

/** The process's sender recovery worker (started on first use). */
export function sharedSenderRecovery(): SenderRecovery {
  shared ??= new SenderRecovery();
  return shared;
}
