/**
 * The block import pipeline: validate the header against its parent, execute the block on the
 * parent's state, check every commitment (state root, receipts root, bloom, gas used, requests,
 * blob gas), then write the block, its receipts, its state nodes, its indexes and — when it wins
 * fork choice — the new head, all in one LMDB transaction.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { type Address, bytesToHex } from '@ethereumjs/util';
import { createVM, encodeReceipt, runBlock, type VM } from '@ethereumjs/vm';
import type { WriteBatch } from '../db/database.js';
import type { TrieStore } from '../state/trieStore.js';
import type { WorldState } from '../state/worldState.js';
import { bytesEqual, type ChainStore } from './chainStore.js';
import { InvalidBlockError, UnknownParentError } from './errors.js';
import { checkHeader } from './validation.js';

export interface ImporterOptions {
  /** Skip proof-of-work seal checks (blocks exported from test chains carry no real seals). */
  skipPowValidation?: boolean;
  fixedDifficulty?: bigint;
  clique?: boolean;
  /** Verifies a proof-of-work seal; returns a reason when invalid. */
  verifySeal?: (header: BlockHeader) => Promise<string | undefined>;
}

export type ImportResult = 'imported' | 'known';

/** The execution outputs of a block built locally, kept until it is sealed and committed. */
export interface BuiltExecution {
  /** Consensus-encoded receipts, in transaction order. */
  receipts: Uint8Array[];
  senders: Address[];
  /** The state trie nodes the block wrote (applied in the block's commit transaction). */
  stateWrites: WriteBatch;
}

/** Answers BLOCKHASH for the block being executed by walking its own ancestry. */
class AncestryHashes {
  tip: BlockHeader | undefined;
  constructor(private readonly chain: ChainStore) {}
  async getBlock(number: number): Promise<{ hash(): Uint8Array }> {
    const n = BigInt(number);
    let h = this.tip;
    if (!h) throw new Error('no block context');
    // Fast path: the tip is canonical, so is every ancestor.
    if (this.chain.isCanonical(h.hash(), h.number)) {
      const hash = this.chain.canonicalHash(n);
      if (hash) return { hash: () => hash };
    }
    while (h && h.number > n) h = this.chain.getHeader(h.parentHash);
    if (!h || h.number !== n) throw new Error(`unknown ancestor ${number}`);
    const hash = h.hash();
    return { hash: () => hash };
  }
  async putBlock(): Promise<void> {}
  shallowCopy(): this {
    return this;
  }
}

export class BlockImporter {
  private vm: VM | undefined;
  private state: MerkleStateManager | undefined;
  private stateRoot: Uint8Array | undefined;
  private readonly hashes: AncestryHashes;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly chain: ChainStore,
    private readonly world: WorldState,
    private readonly opts: ImporterOptions = {},
  ) {
    this.hashes = new AncestryHashes(chain);
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
      const reason = checkHeader(block.header, parent, this.opts);
      if (reason) throw new InvalidBlockError(number, bytesToHex(hash), reason);
      const td = (this.chain.getTotalDifficulty(block.header.parentHash) ?? 0n) + block.header.difficulty;
      const batch = execution.stateWrites;
      this.chain.putBlock(batch, block, td, execution.receipts, execution.senders);
      let moved: { added: Block[]; removed: Block[] } | undefined;
      if (this.winsForkChoice(block, td)) moved = this.chain.setHead(batch, block);
      this.chain.db.commit(batch);
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

  private async getVm(): Promise<VM> {
    if (!this.vm) {
      this.state = this.world.open(undefined, true);
      this.vm = await createVM({
        common: this.chain.common.copy(),
        stateManager: this.state,
        blockchain: this.hashes as never,
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

    const reason = checkHeader(block.header, parent, this.opts);
    if (reason) throw invalid(reason);
    if (
      !this.opts.skipPowValidation &&
      this.opts.verifySeal &&
      block.header.difficulty > 0n &&
      !this.opts.clique
    ) {
      const sealReason = await this.opts.verifySeal(block.header);
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
      result = await runBlock(vm, {
        block,
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
    if (moved) this.chain.headCommitted({ head: block, ...moved });
    return 'imported';
  }

  /** Pre-merge: most total difficulty wins. Post-merge: a block extending the head becomes head. */
  private winsForkChoice(block: Block, td: bigint): boolean {
    const head = this.chain.head();
    if (bytesEqual(block.header.parentHash, head.hash)) return true;
    if (block.header.difficulty === 0n) return false;
    const headTd = this.chain.getTotalDifficulty(head.hash) ?? 0n;
    return td > headTd;
  }
}

function cleanReason(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  // The libraries append a long block description after the reason.
  return msg
    .replace(/\s*\(block (num|number)=.*$/s, '')
    .replace(/ -> .*$/s, '')
    .trim();
}
