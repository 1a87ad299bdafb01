/**
 * The consensus client of `--network=pos-dev`, inside the node: for each slot it does what a beacon
 * node does over the engine API — forkchoiceUpdated with payload attributes, getPayload, newPayload,
 * forkchoiceUpdated to the new block (head, safe and finalized at once: there is no other validator).
 * The calls go to the same `EngineService` the engine port answers from, so blocks made here pass every
 * check a payload from a real consensus client passes. Blocks come every `periodSeconds`, or — with 0 —
 * as soon as the pool holds a transaction.
 */
import { Address, bigIntToBytes, concatBytes } from '@ethereumjs/util';
import type { ChainStore } from '../../chain/chainStore.js';
import { keccak256 } from '../../crypto/index.js';
import { logger } from '../../log.js';
import type { TxPool } from '../../txpool/pool.js';
import type { NodeProducer } from '../engine.js';
import type { EngineService, PayloadAttributes } from './engineService.js';

export interface DevDriverOptions {
  engine: EngineService;
  chain: ChainStore;
  pool: TxPool;
  periodSeconds: number;
  feeRecipient: Address | undefined;
}

const log = logger('pos-dev');

export class DevConsensusDriver implements NodeProducer {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private busy: Promise<void> = Promise.resolve();
  private again = false;
  private working = false;
  private readonly onAdded = () => this.trigger();

  constructor(private readonly opts: DevDriverOptions) {}

  start(): void {
    this.running = true;
    // The node's first fork choice: the chain is engine-driven from here on.
    const head = this.opts.chain.head().hash;
    this.busy = this.opts.engine
      .forkchoiceUpdated(
        { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: head },
        undefined,
        () => {},
      )
      .then(() => undefined);
    if (this.opts.periodSeconds > 0) {
      this.timer = setInterval(() => this.trigger(), this.opts.periodSeconds * 1000);
    } else {
      this.opts.pool.on('added', this.onAdded);
      if (this.opts.pool.size > 0) this.trigger();
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.opts.pool.off('added', this.onAdded);
    await this.busy;
  }

  /** Produces one block now (resolves once it is head). */
  produce(): Promise<void> {
    this.trigger();
    return this.busy;
  }

  private trigger(): void {
    if (!this.running) return;
    if (this.working) {
      this.again = true;
      return;
    }
    this.working = true;
    this.busy = this.busy
      .then(async () => {
        do {
          this.again = false;
          // Transactions arriving together go into one block.
          if (this.opts.periodSeconds === 0) await new Promise((r) => setImmediate(r));
          await this.slot();
        } while (this.again && this.running && this.opts.periodSeconds === 0 && this.opts.pool.size > 0);
      })
      .catch((err) => log.error({ err: (err as Error).message }, 'Block production failed'))
      .finally(() => {
        this.working = false;
      });
  }

  private async slot(): Promise<void> {
    const { engine, chain } = this.opts;
    const head = chain.headHeader();
    const headHash = head.hash();
    const now = BigInt(Math.floor(Date.now() / 1000));
    const timestamp = now > head.timestamp ? now : head.timestamp + 1n;
    const seed = keccak256(concatBytes(headHash, bigIntToBytes(timestamp)));
    const attrs: PayloadAttributes = {
      timestamp,
      prevRandao: seed,
      suggestedFeeRecipient: this.opts.feeRecipient ?? new Address(new Uint8Array(20)),
      withdrawals: engine.isActive('shanghai', timestamp) ? [] : undefined,
      parentBeaconBlockRoot: engine.isActive('cancun', timestamp) ? keccak256(seed) : undefined,
    };
    const state = { headBlockHash: headHash, safeBlockHash: headHash, finalizedBlockHash: headHash };
    const started = await engine.forkchoiceUpdated(state, attrs, () => {});
    if (!started.payloadId) throw new Error(`forkchoiceUpdated answered ${started.payloadStatus.status}`);
    const payload = await engine.getPayload(started.payloadId, () => {});
    const block = payload.block;
    const status = await engine.newPayloadBlock(block, payload.executionRequests);
    if (status.status !== 'VALID')
      throw new Error(`the built block was answered ${status.status}: ${status.validationError}`);
    const hash = block.hash();
    await engine.forkchoiceUpdated(
      { headBlockHash: hash, safeBlockHash: hash, finalizedBlockHash: hash },
      undefined,
      () => {},
    );
    log.info({ number: block.header.number.toString(), txs: block.transactions.length }, 'Produced block');
  }
}
