/**
 * Clique block production for a node whose key is a signer: when the next block is due (block period
 * after the parent, plus a random wiggle when out of turn so the in-turn signer usually wins), which
 * consensus fields it carries (difficulty of its turn, a pending vote or, on checkpoints, the signer
 * list) and the seal. The shared builder executes and fills the block; this engine only decides and signs.
 */
import {
  type Block,
  type BlockHeader,
  createBlockFromBytesArray,
  createBlockHeaderFromBytesArray,
} from '@ethereumjs/block';
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util';
import type { EngineHeaderFields, SealingEngine } from '../../mining/engine.js';
import { EXTRA_VANITY, encodeExtraData, withSeal } from './extraData.js';
import type { VoteProposals } from './proposals.js';
import { addressOfPrivateKey, sealHash, signSeal, ZERO_ADDRESS } from './seal.js';
import { CliqueSnapshots } from './snapshot.js';
import { DIFF_IN_TURN, DIFF_NO_TURN } from './validation.js';

/** Out-of-turn signers wait up to (N/2 + 1) × this many milliseconds more (Besu's multiplier). */
const OUT_OF_TURN_DELAY_MS = 500;
/** Without `createemptyblocks`, an attempt that found no transaction is retried after this long. */
const EMPTY_RETRY_MS = 1000;
const ADD_NONCE = new Uint8Array(8).fill(0xff);
const DROP_NONCE = new Uint8Array(8);

export interface CliqueEngineOptions {
  snapshots: CliqueSnapshots;
  proposals: VoteProposals;
  /** The node key; its address seals. */
  privateKey: Uint8Array;
  periodSeconds: number;
  createEmptyBlocks: boolean;
  /** `--miner-extra-data`, at most 32 bytes, zero-padded on the left into the vanity. */
  vanity: Uint8Array;
  /** Uniform in [0, 1); replaceable so tests can pin the wiggle. */
  random?: () => number;
  now?: () => number;
}

export class CliqueEngine implements SealingEngine {
  readonly name = 'clique';
  /** Lowercase `0x…` address of the node key. */
  readonly signer: string;
  private readonly random: () => number;
  private readonly now: () => number;
  /** When the child of `parent` is due, fixed once per parent so the random wiggle is drawn once. */
  private due: { parent: string; at: number } | undefined;

  constructor(private readonly opts: CliqueEngineOptions) {
    if (opts.vanity.length > EXTRA_VANITY) throw new RangeError('Clique vanity is at most 32 bytes');
    this.signer = addressOfPrivateKey(opts.privateKey);
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
  }

  /** True when this node may seal the child of `parent`: it is a signer and has not sealed too recently. */
  maySealOn(parent: BlockHeader): boolean {
    const tally = this.opts.snapshots.tallyAfter(parent);
    return (
      tally.isSigner(this.signer) &&
      !this.opts.snapshots.signedRecently(this.signer, parent, tally.signers.length)
    );
  }

  childTimestamp(parent: BlockHeader, nowMs: number): bigint {
    const due = parent.timestamp + BigInt(this.opts.periodSeconds);
    const now = BigInt(Math.floor(nowMs / 1000));
    return due > now ? due : now;
  }

  nextBlockDelay(parent: BlockHeader, nowMs: number): number | undefined {
    if (!this.maySealOn(parent)) return undefined;
    const key = bytesToHex(parent.hash());
    if (this.due?.parent !== key) {
      const tally = this.opts.snapshots.tallyAfter(parent);
      let at = Number(this.childTimestamp(parent, nowMs)) * 1000;
      if (!CliqueSnapshots.inTurn(tally, this.signer, parent.number + 1n)) {
        const max = Math.floor((tally.signers.length / 2 + 1) * OUT_OF_TURN_DELAY_MS);
        at += Math.floor(this.random() * max) + 1;
      }
      this.due = { parent: key, at };
    }
    return Math.max(0, this.due.at - nowMs);
  }

  childHeaderFields(parent: BlockHeader, _timestamp: bigint): EngineHeaderFields {
    const snapshots = this.opts.snapshots;
    const tally = snapshots.tallyAfter(parent);
    if (!tally.isSigner(this.signer)) {
      throw new Error(`${this.signer} is not a signer after block ${parent.number}`);
    }
    const number = parent.number + 1n;
    const difficulty = CliqueSnapshots.inTurn(tally, this.signer, number) ? DIFF_IN_TURN : DIFF_NO_TURN;
    const fields = { difficulty, mixHash: new Uint8Array(32) };
    if (snapshots.isCheckpoint(number)) {
      return {
        ...fields,
        coinbase: new Address(hexToBytes(ZERO_ADDRESS)),
        nonce: DROP_NONCE,
        extraData: encodeExtraData(this.opts.vanity, tally.signers),
      };
    }
    const vote = this.opts.proposals.nextVote(tally);
    return {
      ...fields,
      coinbase: new Address(hexToBytes((vote?.candidate ?? ZERO_ADDRESS) as `0x${string}`)),
      nonce: vote?.add ? ADD_NONCE : DROP_NONCE,
      extraData: encodeExtraData(this.opts.vanity, []),
    };
  }

  /**
   * Fees and COINBASE belong to the signer. The node executes on a Common whose consensus credits
   * `header.coinbase` (see `ImporterOptions.executionCommon`), so the header it runs against names the
   * signer there; the sealed header keeps the vote.
   */
  executionHeader(unsealed: BlockHeader): BlockHeader {
    const raw = unsealed.raw();
    raw[2] = hexToBytes(this.signer as `0x${string}`);
    return createBlockHeaderFromBytesArray(raw, {
      common: unsealed.common,
      skipConsensusFormatValidation: true,
    });
  }

  async seal(block: Block, signal: AbortSignal): Promise<Block | undefined> {
    if (signal.aborted) return undefined;
    if (!this.opts.createEmptyBlocks && block.transactions.length === 0) {
      // Besu skips the import of an empty block and tries again; wait a little before the next attempt.
      this.due = { parent: bytesToHex(block.header.parentHash), at: this.now() + EMPTY_RETRY_MS };
      return undefined;
    }
    const seal = signSeal(sealHash(block.header), this.opts.privateKey);
    const raw = block.raw();
    const header = raw[0] as Uint8Array[];
    header[12] = withSeal(block.header.extraData, seal);
    return createBlockFromBytesArray(raw as Parameters<typeof createBlockFromBytesArray>[0], {
      common: block.common,
    });
  }
}
