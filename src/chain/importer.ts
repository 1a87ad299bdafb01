/**
 * The block import pipeline: validate the header against its parent, execute the block on the
 * parent's state, check every commitment (state root, receipts root, bloom, gas used, requests,
 * blob gas), then write the block, its receipts, its state nodes, its indexes and — when it wins
 * fork choice — the new head, all in one LMDB transaction.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Caches, type MerkleStateManager } from '@ethereumjs/statemanager';
import { type Address, bytesToHex } from '@ethereumjs/util';
import { createVM, encodeReceipt, runBlock, type VM } from '@ethereumjs/vm';
import type { WriteBatch } from '../db/database.js';
import { useFastCommonLookups } from '../execution/commonLookups.js';
import type { TrieStore } from '../state/trieStore.js';
import type { WorldState } from '../state/worldState.js';
import { AncestorHashes } from './ancestorHashes.js';
import { bytesEqual, type ChainStore } from './chainStore.js';
import { InvalidBlockError, UnknownParentError } from './errors.js';
import { checkHeader } from './validation.js';

/**
 * Rules a proof-of-authority engine adds to the shared header checks (Clique: seal, signer, turn,
 * extraData, votes). The engine owns difficulty and extraData; proof-of-work checks do not apply.
 */
export interface ConsensusHeaderRules {
  /** Returns a reason when `header` breaks the engine's rules, undefined when it is valid. */
  checkHeader(header: BlockHeader, parent: BlockHeader): string | undefined;
  /**
   * Who receives the fees and whom COINBASE (and EIP-3651's warm coinbase) names, when that is not
   * the header's coinbase (Clique: the signer, as Besu and geth execute it). The block then runs
   * against a view of its header carrying that address, on `ImporterOptions.executionCommon`.
   */
  beneficiary?(header: BlockHeader): Address;
}

export interface ImporterOptions {
  /** Skip proof-of-work seal checks (blocks exported from test chains carry no real seals). */
  skipPowValidation?: boolean;
  fixedDifficulty?: bigint;
  /** Proof-of-authority rules; never skipped by `skipPowValidation`. */
  consensus?: ConsensusHeaderRules;
  /**
   * The Common the VM executes with, when it must differ from the chain's. Under Clique the VM would
   * recover the signer in pure JS for every transaction (~2 ms each); a Common whose consensus credits
   * `header.coinbase`, with `consensus.beneficiary` put there, executes the same block at native speed.
   */
  executionCommon?: Common;
  /** Verifies a proof-of-work seal; returns a reason when invalid. */
  verifySeal?: (header: BlockHeader) => Promise<string | undefined>;
}

export type ImportResult = 'imported' | 'known';

/** Accounts + slots + code entries the import caches may hold before they are dropped. */
const MAX_CACHED_STATE_ENTRIES = 150_000;

/** The execution outputs of a block built locally, kept until it is sealed and committed. */
export interface BuiltExecution {
  /** Consensus-encoded receipts, in transaction order. */
  receipts: Uint8Array[];
  senders: Address[];
  /** The state trie nodes the block wrote (applied in the block's commit transaction). */
  stateWrites: WriteBatch;
}

export class BlockImporter {
  private vm: VM | undefined;
  private state: MerkleStateManager | undefined;
  private caches: Caches | undefined;
  private stateRoot: Uint8Array | undefined;
  private readonly hashes: AncestorHashes;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly chain: ChainStore,
    private readonly world: WorldState,
    private readonly opts: ImporterOptions = {},
  ) {
    this.hashes = new AncestorHashes(chain);
  }

  private get trieStore(): TrieStore {
    return this.world.store;
  }

  /** Imports blocks one after another; imports never interleave. */
  importBlock(block: Block): Promise<ImportResult> {
    const run = this.queue.then(() => this.doImport(block));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs `work` in the import queue with the importer's warm VM positioned on `parent`'s state, for
   * the block builder. The state nodes `work` writes are taken out of the shared store into the
   * returned batch, so that an abandoned block leaves nothing behind; `commitBuilt` applies them.
   */
  executeOnParent<T>(
    parent: BlockHeader,
    work: (vm: VM, state: MerkleStateManager) => Promise<{ result: T; stateRoot: Uint8Array }>,
  ): Promise<{ result: T; stateWrites: WriteBatch }> {
    const run = this.queue.then(async () => {
      const vm = await this.getVm();
      const state = this.state as MerkleStateManager;
      this.hashes.tip = parent;
      if (!this.stateRoot || !bytesEqual(this.stateRoot, parent.stateRoot)) {
        await state.setStateRoot(parent.stateRoot, true);
      }
      try {
        const { result, stateRoot } = await work(vm, state);
        const stateWrites = this.chain.newBatch();
        this.trieStore.drainInto(stateWrites);
        // The caches now describe the built state; a child of the built block starts from them.
        this.stateRoot = stateRoot;
        return { result, stateWrites };
      } catch (err) {
        this.trieStore.discard();
        this.stateRoot = undefined;
        await state.setStateRoot(parent.stateRoot, true).catch(() => undefined);
        throw err;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Stores a sealed block built by `executeOnParent` without executing it again: same writes, total
   * difficulty, fork choice and `newHead` event as an import, in one LMDB transaction.
   */
  commitBuilt(block: Block, execution: BuiltExecution): Promise<ImportResult> {
    const run = this.queue.then(() => {
      const hash = block.hash();
      if (this.chain.hasBlock(hash)) return 'known' as const;
      const number = block.header.number;
      const parent = this.chain.getHeader(block.header.parentHash);
      if (!parent)
        throw new UnknownParentError(number, bytesToHex(hash), bytesToHex(block.header.parentHash));
      const reason = this.headerReason(block.header, parent);
      if (reason) throw new InvalidBlockError(number, bytesToHex(hash), reason);
      const td = (this.chain.getTotalDifficulty(block.header.parentHash) ?? 0n) + block.header.difficulty;
      const batch = execution.stateWrites;
      this.chain.putBlock(batch, block, td, execution.receipts, execution.senders);
      let moved: { added: Block[]; removed: Block[] } | undefined;
      if (this.winsForkChoice(block, td)) moved = this.chain.setHead(batch, block);
      this.chain.db.commit(batch);
      this.trimCaches();
      if (moved) this.chain.headCommitted({ head: block, ...moved });
      return 'imported' as const;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every queued import has finished. */
  async idle(): Promise<void> {
    await this.queue;
  }

  /**
   * The import caches grow with every account and slot a block touches and are never evicted (their
   * ordered maps have no bound): once they pass a size, drop them at a block boundary, where every
   * entry is already written to the trie.
   */
  private trimCaches(): void {
    const c = this.caches;
    if (!c || !this.state) return;
    const entries = (c.account?.size() ?? 0) + (c.storage?.size() ?? 0) + (c.code?.size() ?? 0);
    if (entries > MAX_CACHED_STATE_ENTRIES) this.state.clearCaches();
  }

  private async getVm(): Promise<VM> {
    if (!this.vm) {
      this.caches = new Caches();
      this.state = this.world.open(undefined, this.caches);
      const common = (this.opts.executionCommon ?? this.chain.common).copy();
      // The interpreter asks Common about EIPs at least twice per opcode; answer from a table.
      useFastCommonLookups(common);
      this.vm = await createVM({
        common,
        stateManager: this.state,
        blockchain: this.hashes as never,
        // Without an execution Common the VM's own (slow) Clique path runs, and its EVM needs the signer.
        evmOpts:
          this.opts.consensus?.beneficiary && !this.opts.executionCommon
            ? { cliqueSigner: (h) => this.opts.consensus?.beneficiary?.(h as BlockHeader) as Address }
            : undefined,
      });
    }
    return this.vm;
  }

  private async doImport(block: Block): Promise<ImportResult> {
    const hash = block.hash();
    const number = block.header.number;
    const hashHex = bytesToHex(hash);
    if (this.chain.hasBlock(hash)) return 'known';
    const parent = this.chain.getHeader(block.header.parentHash);
    if (!parent) throw new UnknownParentError(number, hashHex, bytesToHex(block.header.parentHash));
    const invalid = (reason: string) => new InvalidBlockError(number, hashHex, reason);

    const reason = this.headerReason(block.header, parent);
    if (reason) throw invalid(reason);
    // Proof-of-authority seals were checked with the header.
    const powSeal = !this.opts.consensus && !this.opts.skipPowValidation && this.opts.verifySeal;
    if (powSeal && block.header.difficulty > 0n) {
      const sealReason = await powSeal(block.header);
      if (sealReason) throw invalid(sealReason);
    }

    const vm = await this.getVm();
    const state = this.state as MerkleStateManager;
    this.hashes.tip = parent;
    if (!this.stateRoot || !bytesEqual(this.stateRoot, parent.stateRoot)) {
      await state.setStateRoot(parent.stateRoot, true);
    }
    let result: Awaited<ReturnType<typeof runBlock>>;
    try {
      const beneficiary = this.opts.executionCommon && this.opts.consensus?.beneficiary?.(block.header);
      result = await runBlock(vm, {
        block: beneficiary ? withCoinbase(block, beneficiary) : block,
        skipHeaderValidation: true,
        setHardfork: true,
        clearCache: false,
        validateBlockSize: block.common.isActivatedEIP(7934),
      });
    } catch (err) {
      this.trieStore.discard();
      this.stateRoot = undefined;
      await state.setStateRoot(parent.stateRoot, true).catch(() => undefined);
      throw invalid(cleanReason(err));
    }
    this.stateRoot = block.header.stateRoot;

    const receipts = result.receipts.map((r, i) => encodeReceipt(r, block.transactions[i].type));
    const senders: Address[] = block.transactions.map((tx) => tx.getSenderAddress());
    const parentTd = this.chain.getTotalDifficulty(block.header.parentHash) ?? 0n;
    const td = parentTd + block.header.difficulty;

    const batch = this.chain.newBatch();
    this.trieStore.drainInto(batch);
    this.chain.putBlock(batch, block, td, receipts, senders);
    const becomesHead = this.winsForkChoice(block, td);
    let moved: { added: Block[]; removed: Block[] } | undefined;
    if (becomesHead) moved = this.chain.setHead(batch, block);
    this.chain.db.commit(batch);
    this.trimCaches();
    if (moved) this.chain.headCommitted({ head: block, ...moved });
    return 'imported';
  }

  /** The shared header checks, then the proof-of-authority engine's (which own difficulty and extraData). */
  private headerReason(header: BlockHeader, parent: BlockHeader): string | undefined {
    const consensus = this.opts.consensus;
    return (
      checkHeader(header, parent, {
        fixedDifficulty: this.opts.fixedDifficulty,
        proofOfAuthority: consensus !== undefined,
      }) ?? consensus?.checkHeader(header, parent)
    );
  }

  /**
   * Pre-merge: most total difficulty wins, the lower block on a tie. Post-merge: a block extending the
   * head becomes head.
   */
  private winsForkChoice(block: Block, td: bigint): boolean {
    const head = this.chain.head();
    if (bytesEqual(block.header.parentHash, head.hash)) return true;
    if (block.header.difficulty === 0n) return false;
    const headTd = this.chain.getTotalDifficulty(head.hash) ?? 0n;
    // Equal work: the shorter chain wins (as geth breaks ties). Without a tie-break, Clique signers
    // that started together can sit on two branches of equal difficulty where nobody may seal next.
    return td > headTd || (td === headTd && block.header.number < head.number);
  }
}

/**
 * `block` as the VM sees it with `coinbase` in its header: a prototype view, so every other field,
 * the transactions and the commitments checked after execution are the block's own.
 */
export function withCoinbase(block: Block, coinbase: Address): Block {
  const header = Object.create(block.header, { coinbase: { value: coinbase } }) as BlockHeader;
  return Object.create(block, { header: { value: header } }) as Block;
}

function cleanReason(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  // The libraries append a long block description after the reason.
  return msg
    .replace(/\s*\(block (num|number)=.*$/s, '')
    .replace(/ -> .*$/s, '')
    .trim();
}
