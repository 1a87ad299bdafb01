/**
 * What a consensus engine supplies to block production. The block builder (`builder.ts`) is the same
 * for every engine: it picks pool transactions, executes them on the parent state and fills every
 * execution commitment of the header. The engine decides the consensus fields of the child header,
 * who the EVM credits the fees to, when the next block is due, and how a built block is sealed.
 * The producer loop (`producer.ts`) drives an engine: wait `nextBlockDelay`, build, `seal`, commit
 * through the importer — abandoning the attempt when another block becomes head.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Address } from '@ethereumjs/util';

/** The header fields of a child block that belong to the consensus engine. */
export interface EngineHeaderFields {
  /**
   * The header's `coinbase`. Ethash: the beneficiary of reward and fees. Clique: the vote candidate
   * (zero address when not voting); the fees go to the signer, see `SealingEngine.executionHeader`.
   */
  coinbase: Address;
  difficulty: bigint;
  /** Full extraData as it goes into the unsealed header (Clique: vanity ‖ signers ‖ 65 zero bytes). */
  extraData: Uint8Array;
  /** Clique vote nonce; Ethash leaves it unset (the seal fills it). */
  nonce?: Uint8Array;
  mixHash?: Uint8Array;
}

export interface SealingEngine {
  /** For logs: `ethash`, `clique` … */
  readonly name: string;

  /**
   * Consensus fields of a child of `parent` with the given timestamp. Throws when this node cannot
   * produce that block (for example a Clique node that is not a signer).
   */
  childHeaderFields(parent: BlockHeader, timestamp: bigint): EngineHeaderFields;

  /**
   * The timestamp of the next block on `parent` given the wall clock (`nowMs`). Ethash follows
   * Besu: max(now, parent + 1). Clique: parent + period.
   */
  childTimestamp(parent: BlockHeader, nowMs: number): bigint;

  /**
   * Milliseconds to wait before building on `parent`; 0 builds now, `undefined` means this node does
   * not produce a block on that parent (the producer waits for the next head). `hasPending: false`
   * asks when a block without transactions is due, which an engine may put later (Ethash: not ahead
   * of the clock); the producer then builds it at once but has it sealed after that delay (`seal`'s
   * `holdMs`), and starts over when a transaction arrives meanwhile.
   */
  nextBlockDelay(parent: BlockHeader, nowMs: number, hasPending?: boolean): number | undefined;

  /**
   * The header transactions run against. The EVM credits priority fees to `header.coinbase` under
   * proof of work but to the recovered header signer under Clique, so a Clique engine returns a copy
   * of `unsealed` carrying a seal by its own key. Engines whose coinbase receives the fees omit this.
   */
  executionHeader?(unsealed: BlockHeader): BlockHeader;

  /**
   * Seals a fully built block (all roots filled). Resolves with the sealed block, or `undefined` when
   * `signal` aborted first (a new head arrived, mining stopped). Must yield to the event loop while it
   * works: the node keeps serving requests during sealing. `holdMs`: the engine's own search starts
   * this much later (a proof-of-work engine offers the work to external sealers at once).
   */
  seal(block: Block, signal: AbortSignal, holdMs?: number): Promise<Block | undefined>;
}

/** The proof-of-work puzzle handed to external miners (eth_getWork). */
export interface ProofOfWorkPuzzle {
  /** The seal hash of the block being mined. */
  headerHash: Uint8Array;
  seed: Uint8Array;
  /** 2^256 / difficulty. */
  target: bigint;
  number: bigint;
}

/**
 * A sealing engine that searches for proof-of-work seals: what the MINER and mining-related ETH methods
 * change and read through `MiningService`. The consensus engine that mines (Ethash) provides it.
 */
export interface ProofOfWorkSealer extends SealingEngine {
  /** The beneficiary; mining cannot start without one. */
  coinbase: Address | undefined;
  extraData: Uint8Array;
  /** Hashes per second of the local search. */
  hashrate(): number;
  /** The work being mined, for eth_getWork. */
  currentWork(): ProofOfWorkPuzzle | undefined;
  /** An external solution for the current work; true when it seals the block being mined. */
  submitWork(nonce: Uint8Array, headerHash: Uint8Array, mixDigest: Uint8Array): boolean;
}
