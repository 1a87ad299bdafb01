/**
 * The block import pipeline: check the header (alone, against its parent, its seal) by the consensus
 * engine's rules, execute the block on the parent's state with the block processor (which checks every
 * post-execution commitment), then write the block, its receipts, its state nodes, its indexes and —
 * when it wins the engine's fork choice — the new head, all in one LMDB transaction. It sits above
 * `chain/` (which only stores) and beside the processor; the engine arrives as `ConsensusRules`.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { bytesEqual, type ChainStore } from '../chain/chainStore.js';
import { InvalidBlockError, UnknownParentError } from '../chain/errors.js';
import type { WriteBatch } from '../db/database.js';
import { logger } from '../log.js';
import type { BlockState } from '../state/blockState.js';
import { FlatState } from '../state/flatState.js';
import type { WorldState } from '../state/worldState.js';
import { type BlockExecution, BlockExecutionError, BlockProcessor } from './blockProcessor.js';
import type { ConsensusRules, ForkChoiceCandidate } from './consensusRules.js';
import { sharedSenderRecovery } from './senderRecovery.js';
import type { BlockTracer } from './tracer.js';

export interface ImporterOptions {
  /** Skip proof-of-work seal checks (blocks exported from test chains carry no real seals). */
  skipPowValidation?: boolean;
}

export type ImportResult = 'imported' | 'known';

const log = logger('state');

/** The execution outputs of a block built locally, kept until it is sealed and committed. */
export interface BuiltExecution extends BlockExecution {
  /** The state trie nodes the block wrote (applied in the block's commit transaction). */
  stateWrites: WriteBatch;
  /** Set by `writeAhead`: the commit of the state writes, handed over before the block was sealed. */
  writtenAhead?: Promise<void>;
}

/** A block refused at import, kept for debug_getBadBlocks and debug_standardTraceBadBlockToFile. */
export interface BadBlock {
  block: Block;
  reason: string;
}

/** Bad blocks kept (the oldest leaves first), as Besu's bad block manager bounds its cache. */
export const MAX_BAD_BLOCKS = 100;

export class BlockImporter {
  readonly processor: BlockProcessor;
  private queue: Promise<unknown> = Promise.resolve();
  /** Imports queued or running. */
  private pending = 0;
  /** Blocks refused at import, by hash, oldest first. */
  private readonly bad = new Map<string, BadBlock>();
  /**
   * The commit of the last imported block, running on LMDB's writer thread; then its head move.
   * The next block executes meanwhile, and is stored once it has settled; everything else the queue
   * runs waits for it first.
   */
  private committing: Promise<void> = Promise.resolve();
  /**
   * In a bulk import, the last block handed to the commit thread that moved the head, while its commit
   * runs: the head the next block's fork choice compares with. A block extending it is stored at once
   * (its transaction joins the commit thread's queue, see `Database.commitAsync`) without waiting for
   * the blocks before it to be durable.
   */
  private staged: { block: Block; td: bigint } | undefined;
  /** Blocks whose own (still committing) transaction moved the flat tables (see `followHead`). */
  private readonly flatCarried = new Set<string>();

  constructor(
    private readonly chain: ChainStore,
    private readonly world: WorldState,
    readonly rules: ConsensusRules,
    private readonly opts: ImporterOptions = {},
  ) {
    this.processor = new BlockProcessor(chain, world, rules);
    chain.on('newHead', (e) => {
      // The flat tables moved with this block's transaction, and perhaps already past it.
      if (this.flatCarried.size > 0 && this.flatCarried.delete(bytesToHex(e.head.hash()))) return;
      try {
        this.followHead(e.head, e);
      } catch (err) {
        // The tables keep naming the state they hold: reads at the head go to the trie meanwhile.
        log.error({ err }, 'Moving the flat state tables to the new head failed');
      }
    });
  }

  /**
   * Imports blocks one after another; `tracer` sees this block's execution. Resolves once the block
   * is committed and durable. With `bulk` (the caller queues more blocks behind, as `blocks import`
   * does) the block commits on the database's commit thread and the next queued blocks execute while
   * its transaction is written and flushed: blocks that extend the head queue up there and commit
   * together, in order, several to a transaction (see `Database.commitAsync`), each block resolving
   * once the transaction holding it is durable. Every other path commits one transaction per block.
   */
  async importBlock(
    block: Block,
    tracer?: BlockTracer,
    opts: { bulk?: boolean } = {},
  ): Promise<ImportResult> {
    // Senders recover on a worker thread while earlier queued blocks execute.
    const senders = sharedSenderRecovery().prefetch(block);
    const staged = await this.enqueue(() => this.doImport(block, tracer, senders, opts.bulk === true), {
      overlapCommit: true,
    });
    await staged.durable;
    return staged.result;
  }

  /**
   * Runs `work` in the import queue with the processor's warm VM positioned on `parent`'s state (and
   * that state, the VM's state manager), for the block builder. The state nodes `work` writes are kept out of the shared store in the returned
   * batch, so that an abandoned block leaves nothing behind; `commitBuilt` applies them.
   */
  executeOnParent<T>(
    parent: BlockHeader,
    work: (vm: VM, state: BlockState) => Promise<{ result: T; stateRoot: Uint8Array }>,
  ): Promise<{ result: T; stateWrites: WriteBatch }> {
    return this.enqueue(() => this.processor.onParent(parent, work));
  }

  /**
   * Stores a sealed block built by `executeOnParent` without executing it again: same header checks,
   * writes, total difficulty, fork choice and `newHead` event as an import, in one LMDB transaction
   * (behind the one of its trie nodes when `writeAhead` handed those over first).
   * The transaction is written on the database's commit thread while this one answers requests, and
   * is readable only once durable (`Database.commitDurable`): a receipt answered must survive a kill,
   * and until then requests see the parent as the head, with its flat state. The queue waits for it.
   */
  commitBuilt(block: Block, execution: BuiltExecution): Promise<ImportResult> {
    return this.enqueue(async () => {
      if (this.chain.hasBlock(block.hash())) return 'known' as const;
      this.checkHeader(block);
      const changes = execution.changes ?? this.processor.builtChanges(block.header.stateRoot);
      const durable = this.store(block, { ...execution, changes }, execution.stateWrites, 'durable');
      await this.chain.db.commitDurable(execution.stateWrites);
      // Committed before the block's own transaction (the commit thread keeps the order).
      await execution.writtenAhead;
      durable();
      return 'imported' as const;
    });
  }

  /**
   * Hands a built block's state writes to the database's commit thread now, while the block is sealed:
   * trie nodes, code and preimages, each stored under its own hash, so nothing refers to them until
   * the block is stored. `commitBuilt` then writes only the block's own records, behind them. A block
   * abandoned after this leaves nodes nothing refers to (as any state an archive node left behind),
   * never a partial block; a failure is reported by `commitBuilt` (and every later commit).
   */
  writeAhead(execution: BuiltExecution): void {
    if (execution.writtenAhead !== undefined || execution.stateWrites.size === 0) return;
    const ahead = this.chain.db.commitDurable(execution.stateWrites);
    ahead.catch(() => undefined);
    execution.writtenAhead = ahead;
    execution.stateWrites = this.chain.newBatch();
  }

  /**
   * Makes the stored block `head` the canonical head (reorganising to it from any branch) and records
   * the safe and finalized blocks, in one transaction behind the queued imports: the consensus
   * client's fork choice after the merge.
   */
  setForkchoice(head: Uint8Array, safe?: Uint8Array, finalized?: Uint8Array): Promise<void> {
    return this.enqueue(async () => {
      const block = this.chain.getBlock(head);
      if (!block) throw new Error(`block ${bytesToHex(head)} is not stored`);
      const batch = this.chain.newBatch();
      const moved = bytesEqual(this.chain.head().hash, head) ? undefined : this.chain.setHead(batch, block);
      this.chain.setForkchoiceTags(batch, safe, finalized);
      this.chain.db.commit(batch);
      if (moved) this.chain.headCommitted({ head: block, ...moved });
    });
  }

  /**
   * Checks and executes `block` on its parent's state without storing anything: what a BFT validator
   * does with a proposal before it prepares. The execution can be stored later with `commitBuilt`
   * once the block is sealed (sealing changes extraData only, not what executes). Throws
   * `InvalidBlockError` for a block that fails its header checks or its execution.
   */
  executeWithoutStoring(block: Block): Promise<BuiltExecution> {
    return this.enqueue(async () => {
      const parent = this.checkHeader(block);
      const batch = this.chain.newBatch();
      try {
        const execution = await this.processor.execute(block, parent, batch);
        return { ...execution, stateWrites: batch };
      } catch (err) {
        if (err instanceof BlockExecutionError) throw this.invalid(block, err.reason);
        throw err;
      }
    });
  }

  /** Resolves once every queued import has finished and is committed. */
  async idle(): Promise<void> {
    await this.queue;
    await this.committing.catch(() => undefined);
  }

  /** Whether an import (or a block build) is queued or running. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /** Tasks queued or running besides the one asking (a block builder waiting for arrivals gives way). */
  get othersQueued(): boolean {
    return this.pending > 1;
  }

  /** The blocks refused at import, oldest first (at most MAX_BAD_BLOCKS). */
  badBlocks(): BadBlock[] {
    return [...this.bad.values()];
  }

  badBlock(hash: Uint8Array): BadBlock | undefined {
    return this.bad.get(bytesToHex(hash));
  }

  clearBadBlocks(): void {
    this.bad.clear();
  }

  /**
   * Makes `block` (stored) the head, dropping the canonical blocks above it (debug_setHead). The world
   * state of every stored block stays available, so the head state moves with it.
   */
  rewindTo(block: Block): Promise<void> {
    return this.enqueue(async () => {
      const batch = this.chain.newBatch();
      const moved = this.chain.setHead(batch, block);
      this.chain.db.commit(batch);
      this.chain.headCommitted({ head: block, ...moved });
    });
  }

  /**
   * Executes the stored `block` again on its parent's state, with every post-execution check, and
   * stores what it produced, the block becoming the head (debug_replayBlock).
   */
  reexecute(block: Block): Promise<void> {
    return this.enqueue(async () => {
      const parent = this.checkHeader(block);
      const batch = this.chain.newBatch();
      const execution = await this.processor.execute(block, parent, batch);
      const td = (this.chain.getTotalDifficulty(block.header.parentHash) ?? 0n) + block.header.difficulty;
      this.chain.putBlock(batch, block, td, execution.receipts, execution.senders);
      if (execution.changes) batch.put('stateChanges', block.hash(), FlatState.encodeKeys(execution.changes));
      const moved = this.chain.setHead(batch, block);
      this.chain.db.commit(batch);
      this.chain.headCommitted({ head: block, ...moved });
    });
  }

  /**
   * Runs `work` after everything queued before it. Unless `overlapCommit` (an import, which waits for
   * the previous commit itself right before storing), the previous block's commit has settled first.
   */
  private enqueue<T>(work: () => Promise<T>, opts: { overlapCommit?: boolean } = {}): Promise<T> {
    this.pending++;
    const task = opts.overlapCommit
      ? work
      : async () => {
          await this.committing;
          return work();
        };
    const run = this.queue.then(task).finally(() => {
      this.pending--;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private remember(block: Block, reason: string): void {
    const key = bytesToHex(block.hash());
    this.bad.delete(key);
    this.bad.set(key, { block, reason });
    while (this.bad.size > MAX_BAD_BLOCKS) this.bad.delete(this.bad.keys().next().value as string);
  }

  private async doImport(
    given: Block,
    tracer: BlockTracer | undefined,
    senders: Promise<void>,
    bulk: boolean,
  ): Promise<{ result: ImportResult; durable: Promise<void> }> {
    const block = this.rules.reviewBlock?.(given) ?? given;
    const hash = block.hash();
    if (this.chain.hasBlock(hash)) {
      await this.committing;
      return { result: 'known', durable: Promise.resolve() };
    }
    const parent = this.checkHeader(block);
    const rules = this.rules;
    if (block.header.difficulty > 0n && !(rules.sealIsProofOfWork && this.opts.skipPowValidation)) {
      const sealReason = await rules.verifySeal(block.header);
      if (sealReason) throw this.invalid(block, sealReason);
    }
    await senders;
    const batch = this.chain.newBatch();
    let execution: BlockExecution;
    try {
      execution = await this.processor.execute(block, parent, batch, tracer);
    } catch (err) {
      if (err instanceof BlockExecutionError) throw this.invalid(block, err.reason);
      throw err;
    }
    // The parent's commit (and head move) settles before this block's fork choice and writes, unless
    // in a bulk import the block extends the head handed to the commit thread last, and the flat
    // tables with it: its transaction then queues behind the parent's.
    const staged = this.staged;
    const follows =
      bulk &&
      staged !== undefined &&
      bytesEqual(block.header.parentHash, staged.block.hash()) &&
      this.world.flat.isAt(parent.stateRoot);
    if (!follows) await this.committing;
    // In a bulk import this block commits on the database's commit thread while the next executes;
    // alone, it commits here (nothing to overlap with).
    if (bulk) return { result: 'imported', durable: this.storeAsync(block, execution, batch) };
    this.store(block, execution, batch);
    return { result: 'imported', durable: Promise.resolve() };
  }

  /** The header checks; returns the parent. */
  private checkHeader(block: Block): BlockHeader {
    const header = block.header;
    const parent = this.chain.getHeader(header.parentHash);
    if (!parent)
      throw new UnknownParentError(header.number, bytesToHex(block.hash()), bytesToHex(header.parentHash));
    const reason = this.rules.verifyHeaderAlone(header) ?? this.rules.verifyHeader(header, parent);
    if (reason) throw this.invalid(block, reason);
    return parent;
  }

  /** `store`, its transaction committed on LMDB's writer thread (see `committing`). */
  private storeAsync(block: Block, execution: BlockExecution, batch: WriteBatch): Promise<void> {
    const after = this.store(block, execution, batch, 'readable');
    const done = this.chain.db.commitAsync(batch).then(after, (err) => {
      // The tables name the root the database holds again; nothing staged stands.
      this.staged = undefined;
      this.flatCarried.clear();
      this.world.flat.reload();
      throw err;
    });
    // A failed commit stops the node (the database's failure listeners); the next import rethrows it.
    done.catch(() => undefined);
    this.committing = done;
    return done;
  }

  /**
   * Block, receipts, indexes and (when it wins fork choice) the head, in `batch`'s one transaction.
   * Committed here (`commit` absent), or by the caller, who then calls the returned function: once
   * the batch is handed to `Database.commitAsync` (`readable`) or once `Database.commitDurable`
   * resolved (`durable`).
   */
  private store(
    block: Block,
    execution: BlockExecution,
    batch: WriteBatch,
    commit?: 'readable' | 'durable',
  ): () => void {
    const parentTd = this.chain.getTotalDifficulty(block.header.parentHash) ?? 0n;
    const td = parentTd + block.header.difficulty;
    this.chain.putBlock(batch, block, td, execution.receipts, execution.senders);
    // The head as of the transactions handed over so far (the committed one when none is staged).
    const staged = this.staged;
    let head: ForkChoiceCandidate;
    if (staged !== undefined)
      head = { hash: staged.block.hash(), header: staged.block.header, totalDifficulty: staged.td };
    else {
      const committed = this.chain.head();
      head = {
        hash: committed.hash,
        header: this.chain.headHeader(),
        totalDifficulty: this.chain.getTotalDifficulty(committed.hash) ?? 0n,
      };
    }
    const wins = this.rules.isBetterHead(
      { hash: block.hash(), header: block.header, totalDifficulty: td },
      head,
    );
    const moved = wins
      ? this.chain.setHead(batch, block, { number: head.header.number, hash: head.hash })
      : undefined;
    // The head's flat tables follow it: in this transaction when the block extends the state they
    // hold, else once the head is committed (see `followHead`).
    const flat = this.world.flat;
    const changes = execution.changes;
    if (changes) batch.put('stateChanges', block.hash(), FlatState.encodeKeys(changes));
    const parentRoot = this.chain.getHeader(block.header.parentHash)?.stateRoot;
    const extendsFlat =
      moved !== undefined && changes !== undefined && parentRoot !== undefined && flat.isAt(parentRoot);
    if (extendsFlat) flat.apply(batch, changes, block.header.stateRoot);
    const committed = () => {
      if (this.staged?.block === block) this.staged = undefined;
      if (moved) this.chain.headCommitted({ head: block, ...moved });
    };
    if (commit === 'readable') {
      // The batch is readable from the moment it is handed to the commit thread (the next block
      // executes on it): so are the tables' new entries.
      if (extendsFlat) {
        flat.moved(block.header.stateRoot);
        this.flatCarried.add(bytesToHex(block.hash()));
      }
      if (moved) this.staged = { block, td };
      return committed;
    }
    const durable = () => {
      if (extendsFlat) flat.moved(block.header.stateRoot);
      committed();
    };
    if (commit === 'durable') return durable;
    this.chain.db.commit(batch);
    durable();
    return () => {};
  }

  /**
   * Any head move the block's own transaction did not bring the flat tables along (a reorganisation,
   * a head set by fork choice): they move by the changed keys of the blocks taken off and put on,
   * read from the new head's committed trie, or are rebuilt from it when some keys are missing.
   */
  private followHead(head: Block, moved: { added: Block[]; removed: Block[] }): void {
    const flat = this.world.flat;
    const root = head.header.stateRoot;
    if (flat.isAt(root)) return;
    const fork =
      moved.removed.length > 0
        ? moved.removed[0].header
        : this.chain.getHeader(moved.added[0].header.parentHash);
    const keys: Uint8Array[] = [];
    let complete = fork !== undefined && flat.isAt(fork.stateRoot);
    for (const b of [...moved.removed, ...moved.added]) {
      if (!complete) break;
      const k = this.chain.db.get('stateChanges', b.hash());
      if (k === undefined) complete = false;
      else keys.push(k);
    }
    if (complete) flat.catchUp(root, keys);
    else flat.rebuild(root);
  }

  private invalid(block: Block, reason: string): InvalidBlockError {
    this.remember(block, reason);
    return new InvalidBlockError(block.header.number, bytesToHex(block.hash()), reason);
  }
}
