/**
 * What the MINER and mining-related ETH methods see: start and stop, the settings Besu lets an
 * operator change at run time (coinbase, extra data, minimum gas price and priority fee, target gas
 * limit), hash rates, and the proof-of-work puzzle for external miners. The sealer comes from the
 * consensus engine (Ethash); this layer knows only its interface.
 */
import { type Address, createAddressFromString } from '@ethereumjs/util';
import type { TxPool } from '../txpool/pool.js';
import type { ProofOfWorkPuzzle, ProofOfWorkSealer } from './engine.js';
import type { BlockProducer } from './producer.js';

export interface MinerSettings {
  minGasPrice: bigint;
  minPriorityFee: bigint;
  targetGasLimit: bigint | undefined;
}

/** Submitted hash rates count towards eth_hashrate for this long after their last report. */
const SUBMITTED_RATE_TTL_MS = 60_000;

export class NoCoinbaseError extends Error {
  override name = 'NoCoinbaseError';
  constructor() {
    super('Coinbase not set. Unable to start mining without a coinbase');
  }
}

export class MiningService {
  private readonly submitted = new Map<string, { rate: bigint; at: number }>();

  constructor(
    private readonly producer: BlockProducer,
    private readonly sealer: ProofOfWorkSealer,
    readonly settings: MinerSettings,
    private readonly pool: TxPool | undefined,
  ) {}

  isMining(): boolean {
    return this.producer.isRunning;
  }

  /** Throws NoCoinbaseError when no coinbase is set. */
  start(): void {
    if (!this.sealer.coinbase) throw new NoCoinbaseError();
    this.producer.start();
  }

  stop(): Promise<void> {
    return this.producer.stop();
  }

  coinbase(): Address | undefined {
    return this.sealer.coinbase;
  }

  setCoinbase(address: string): void {
    this.sealer.coinbase = createAddressFromString(address);
  }

  extraData(): Uint8Array {
    return this.sealer.extraData;
  }

  setExtraData(data: Uint8Array): void {
    this.sealer.extraData = data;
  }

  /** The pool and the block builder share the floor, as in Besu. */
  setMinGasPrice(wei: bigint): void {
    this.settings.minGasPrice = wei;
    if (this.pool) this.pool.options.minGasPrice = wei;
  }

  setMinPriorityFee(wei: bigint): void {
    this.settings.minPriorityFee = wei;
  }

  setTargetGasLimit(gas: bigint): void {
    this.settings.targetGasLimit = gas;
  }

  /** Local search rate plus the rates external sealers reported recently. */
  hashrate(now = Date.now()): bigint {
    let total = BigInt(this.producer.isRunning ? this.sealer.hashrate() : 0);
    for (const [id, r] of this.submitted) {
      if (now - r.at > SUBMITTED_RATE_TTL_MS) this.submitted.delete(id);
      else total += r.rate;
    }
    return total;
  }

  submitHashrate(id: string, rate: bigint, now = Date.now()): void {
    this.submitted.set(id, { rate, at: now });
  }

  work(): ProofOfWorkPuzzle | undefined {
    return this.producer.isRunning ? this.sealer.currentWork() : undefined;
  }

  submitWork(nonce: Uint8Array, headerHash: Uint8Array, mixDigest: Uint8Array): boolean {
    return this.sealer.submitWork(nonce, headerHash, mixDigest);
  }
}
