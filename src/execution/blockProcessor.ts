/**
 * The block processor: executes blocks on a state view. One warm VM over the shared state (with
 * account, storage and code caches kept from block to block) serves import and the block builder; a
 * replay runs on a private VM over an overlay of a block's parent state, so it never writes to the
 * database and never sees or leaves nodes in the write path's pending set.
 *
 * Block execution itself is the library's `runBlock` (DAO transition, EIP-4788 and EIP-2935 system
 * writes, transactions, withdrawals, rewards, EIP-7685 requests and every post-execution commitment),
 * except for the plain proof-of-stake blocks `runOwn` takes (system writes, transactions and
 * withdrawals only), which import runs through `startBlock` here with its own receipts root. The
 * builder chooses its transactions one by one, so it runs the same steps through `startBlock` and
 * `finishBlock`, the only copies of them in Alder.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { type Common, Hardfork } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import {
  Account,
  Address,
  bigIntToAddressBytes,
  bigIntToBytes,
  bytesToHex,
  createAddressFromString,
  KECCAK256_RLP,
} from '@ethereumjs/util';
import { Bloom, createVM, type RunTxResult, runBlock, runTx, type VM } from '@ethereumjs/vm';
import { AncestorHashes } from '../chain/ancestorHashes.js';
import { transactionEncodings } from '../chain/blockEncoding.js';
import { bytesEqual, type ChainStore } from '../chain/chainStore.js';
import { encodeBuiltReceipt } from '../chain/receiptEncoding.js';
import { keccak256 } from '../crypto/index.js';
import type { WriteBatch } from '../db/database.js';
import type { BlockState } from '../state/blockState.js';
import type { StateChanges } from '../state/flatState.js';
import type { WorldState } from '../state/worldState.js';
import { useFastCommonLookups } from '../util/commonLookups.js';
import { Lru } from '../util/lru.js';
import { orderedTrieRoot } from '../util/orderedTrieRoot.js';
import { wordBytes } from '../util/word.js';
import type { ConsensusRules } from './consensusRules.js';
import { type FastExecutionStats, installFastExecution } from './fastCall/blockCall.js';
import { runBlockTx } from './fastCall/blockTx.js';
import { useJournalShortcuts } from './journalShortcuts.js';
import { openOverlayState } from './overlayStore.js';
import { attachTracer, type BlockTracer, TraceAbort } from './tracer.js';

/** What a block's execution produced, for storing it. */
export interface BlockExecution {
  /** Consensus-encoded receipts, in transaction order. */
  receipts: Uint8Array[];
  senders: Address[];
  /** The accounts and slots the block changed (for the head's flat tables). */
  changes?: StateChanges;
}

/** The block broke a consensus rule during execution (state root, receipts, gas, requests …). */
export class BlockExecutionError extends Error {
  override name = 'BlockExecutionError';
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface ReplayOptions<T> {
  tracer?: BlockTracer;
  /**
   * Stop right before this transaction (0-based) and run `inspect` on its pre-state; without it the
   * whole block runs (and its commitments are checked).
   */
  stopBeforeTx?: number;
  /** Leave the block right after this transaction ran (0-based): no later transaction, no rewards, no checks. */
  stopAfterTx?: number;
  inspect?: (vm: VM) => Promise<T>;
}

const BEACON_ROOTS_ADDRESS = createAddressFromString('0x000f3df6d732807ef1319fb7b8bb8522d0beac02');
const GWEI = 1_000_000_000n;
/** Blocks whose replay VM is kept positioned for tracing their next transaction. */
const POSITIONED_BLOCKS = 4;

/** Thrown inside a replay to leave `runBlock` once the inspected point has run. */
class ReplayStop extends Error {}

export class BlockProcessor {
  private vm: VM | undefined;
  /** The warm state of import and the builder (kept from block to block; see `state/blockState.ts`). */
  private state: BlockState | undefined;
  private readonly hashes: AncestorHashes;
  /** Replay VMs positioned after a transaction of a stored block, by block hash (`replayTransaction`). */
  private readonly positioned = new Lru<string, { vm: VM; next: number }>(POSITIONED_BLOCKS);
  /** The changes of the last block the builder filled, by its state root. */
  private built: { root: Uint8Array; changes: StateChanges } | undefined;
  /** Where the warm VM's transaction messages ran (see `installInterpreter`). */
  private fastStats: FastExecutionStats | undefined;
  /**
   * Whether import and the block builder run transaction messages on the interpreter in `fastCall/`
   * where it can (on by default; off runs every message on the library's EVM, e.g. to compare).
   */
  useInterpreter = true;
  /** A tracer is attached to the warm VM: every message runs on the library's EVM, which it observes. */
  private tracing = false;

  constructor(
    private readonly chain: ChainStore,
    private readonly world: WorldState,
    private readonly rules: ConsensusRules,
  ) {
    this.hashes = new AncestorHashes(chain);
  }

  /** How many transaction messages of import and block building ran on the interpreter, and why others did not. */
  get interpreterStats(): FastExecutionStats | undefined {
    return this.fastStats;
  }

  /**
   * Executes `block` on `parent`'s state with the warm VM and checks every post-execution commitment.
   * On success the state nodes it wrote move into `batch`; on failure they are dropped and
   * BlockExecutionError says why. Callers serialise calls (the importer's queue).
   */
  async execute(
    block: Block,
    parent: BlockHeader,
    batch: WriteBatch,
    tracer?: BlockTracer,
  ): Promise<BlockExecution> {
    const { vm, state } = await this.positionOn(parent);
    const detach = tracer ? attachTracer(vm, tracer) : undefined;
    this.tracing = tracer !== undefined;
    let receipts: Uint8Array[];
    try {
      await tracer?.onBlockStart?.(block, vm);
      const view = withTxTrieRoot(this.withEngineReward(vm, this.executionView(block)));
      const validateBlockSize = block.common.isActivatedEIP(7934);
      if (tracer === undefined && this.runsOwn(vm, view))
        receipts = await this.runOwn(vm, view, validateBlockSize);
      else {
        const result = await runBlock(vm, {
          block: view,
          skipHeaderValidation: true,
          setHardfork: true,
          clearCache: false,
          validateBlockSize,
        });
        receipts = result.receipts.map((r, i) => encodeBuiltReceipt(r, block.transactions[i].type));
      }
    } catch (err) {
      await this.reset(state, parent);
      throw new BlockExecutionError(cleanReason(err));
    } finally {
      this.tracing = false;
      try {
        detach?.();
      } catch {
        // An import is never undone by its tracer.
      }
    }
    const { changes, preimages } = state.commitBlock();
    this.world.store.drainInto(batch);
    this.chain.putPreimages(batch, preimages);
    return { receipts, senders: block.transactions.map(senderOf), changes };
  }

  /**
   * Whether `block` runs on `runOwn`: a block whose execution is its system writes, transactions and
   * withdrawals only — proof of stake (no rewards, no ommers), no engine-paid reward, none of the
   * forks that add more (EIP-7685 requests, block access lists, two-dimensional gas, binary trees), not
   * the DAO block. Everything else runs on the library's `runBlock`.
   */
  private runsOwn(vm: VM, block: Block): boolean {
    const common = vm.common;
    common.setHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp });
    if (this.rules.executionCommon || common.consensusType() !== 'pos') return false;
    if (block.uncleHeaders.length > 0) return false;
    for (const eip of [7685, 7928, 8037, 7864]) if (common.isActivatedEIP(eip)) return false;
    return !(
      common.hardforkIsActiveOnBlock(Hardfork.Dao, block.header.number) &&
      block.header.number === common.hardforkBlock(Hardfork.Dao)
    );
  }

  /**
   * The library's `runBlock` for the blocks `runsOwn` accepts, step for step — block checks, EIP-4788
   * and EIP-2935 system writes, transactions, withdrawals, then the receipts root, logs bloom, gas used
   * and state root checked with the library's messages — but with the receipts root computed in one
   * pass over the encoded receipts: the library builds it in a trie entry by entry (~7% of import).
   * Returns the encoded receipts; the state changes stay in the VM's state, as `runBlock` leaves them.
   */
  private async runOwn(vm: VM, block: Block, validateBlockSize: boolean): Promise<Uint8Array[]> {
    const fail = (msg: string) => new Error(`${msg} (${vm.errorStr()} -> ${block.errorStr()})`);
    const header = block.header;
    const journal = vm.evm.journal;
    const receipts: Uint8Array[] = new Array(block.transactions.length);
    await journal.checkpoint();
    try {
      if (header.gasLimit >= 0x8000000000000000n)
        throw fail('Invalid block with gas limit greater than (2^63 - 1)');
      await block.validateData(false, true, validateBlockSize);
      await this.startBlock(vm, header);
      const bloom = new Bloom(undefined, vm.common);
      let gasUsed = 0n;
      let receiptGasUsed = 0n;
      for (let i = 0; i < block.transactions.length; i++) {
        const tx = block.transactions[i];
        if (header.gasLimit < tx.gasLimit + gasUsed) throw fail('tx has a higher gas limit than the block');
        const res = await runBlockTx(vm, { tx, block, blockGasUsed: receiptGasUsed });
        gasUsed += res.blockGasSpent;
        receiptGasUsed += res.totalGasSpent;
        bloom.or(res.bloom);
        receipts[i] = encodeBuiltReceipt(res.receipt, tx.type);
      }
      if (vm.common.isActivatedEIP(4895)) {
        for (const w of block.withdrawals ?? []) await credit(vm, w.address, w.amount * GWEI);
        await journal.cleanup();
      }
      const stateRoot = await vm.stateManager.getStateRoot();
      const receiptsRoot = receipts.length === 0 ? KECCAK256_RLP : orderedTrieRoot(receipts, keccak256);
      if (!bytesEqual(receiptsRoot, header.receiptTrie)) throw fail('invalid receiptTrie');
      if (!bytesEqual(bloom.bitvector, header.logsBloom)) throw fail('invalid bloom');
      if (gasUsed !== header.gasUsed) throw fail('invalid gasUsed');
      if (!bytesEqual(stateRoot, header.stateRoot))
        throw fail(
          `invalid block stateRoot, got: ${bytesToHex(stateRoot)}, want: ${bytesToHex(header.stateRoot)}`,
        );
    } catch (err) {
      await journal.revert();
      throw err;
    }
    await journal.commit();
    return receipts;
  }

  /**
   * Runs `work` with the warm VM positioned on `parent`'s state, and that state (the VM's state
   * manager), for the block builder. The state nodes
   * `work` writes go into a batch the caller commits with the block (`BlockImporter.commitBuilt`), so an
   * abandoned block leaves nothing behind. Callers serialise calls (the importer's queue).
   */
  async onParent<T>(
    parent: BlockHeader,
    work: (vm: VM, state: BlockState) => Promise<{ result: T; stateRoot: Uint8Array }>,
  ): Promise<{ result: T; stateWrites: WriteBatch }> {
    const { vm, state } = await this.positionOn(parent);
    try {
      const { result, stateRoot } = await work(vm, state);
      // The committed layer now describes the built state; a child of the built block starts from it.
      const built = state.commitBlock();
      if (!bytesEqual(built.root, stateRoot)) throw new Error('built state root differs');
      this.built = { root: built.root, changes: built.changes };
      const stateWrites = this.chain.newBatch();
      this.world.store.drainInto(stateWrites);
      this.chain.putPreimages(stateWrites, built.preimages);
      return { result, stateWrites };
    } catch (err) {
      await this.reset(state, parent);
      throw err;
    }
  }

  /** The changes of the built block with state root `root`, while it is the last one built. */
  builtChanges(root: Uint8Array): StateChanges | undefined {
    const built = this.built;
    return built !== undefined && bytesEqual(built.root, root) ? built.changes : undefined;
  }

  /**
   * Re-executes `block` (already stored, or at least its parent state) on a private VM over an overlay
   * of its parent's state: nothing is written to the database or to the shared trie store. With
   * `stopBeforeTx` it stops right before that transaction and resolves with what `inspect` returned
   * there; otherwise it runs the whole block and resolves with `inspect`'s result on the post-state.
   */
  async replay<T = undefined>(block: Block, opts: ReplayOptions<T> = {}): Promise<T | undefined> {
    const parent = this.chain.getHeader(block.header.parentHash);
    if (!parent) throw new Error(`parent of block ${block.header.number} is unknown`);
    const stop = opts.stopBeforeTx;
    if (stop !== undefined && (stop < 0 || stop >= block.transactions.length))
      throw new RangeError(`block ${block.header.number} has no transaction ${stop}`);
    const common = this.executionCommon();
    const vm = await createVM({
      common,
      stateManager: openOverlayState(this.world, parent.stateRoot, common),
      blockchain: new AncestorHashes(this.chain, parent) as never,
    });
    let inspected: T | undefined;
    let inspectError: unknown;
    let stopNow = false;
    let index = -1;
    // The inspection runs inside the EVM's wait for `beforeTx`; the next listener then leaves runBlock.
    const atTx = (_tx: unknown, resolve?: (r?: unknown) => void) => {
      index++;
      if (index !== stop || !opts.inspect) return resolve?.();
      opts.inspect(vm).then(
        (r) => {
          inspected = r;
          stopNow = true;
          resolve?.();
        },
        (err) => {
          inspectError = err;
          stopNow = true;
          resolve?.();
        },
      );
    };
    const leave = (_tx: unknown) => {
      if (stopNow || index === stop) throw new ReplayStop();
    };
    const after = opts.stopAfterTx;
    let ran = -1;
    const leaveAfter = (_result: unknown) => {
      ran++;
      if (ran === after) throw new ReplayStop();
    };
    const detach = opts.tracer ? attachTracer(vm, opts.tracer) : undefined;
    if (stop !== undefined) {
      vm.events.on('beforeTx', atTx);
      vm.events.on('beforeTx', leave);
    }
    if (after !== undefined) vm.events.on('afterTx', leaveAfter);
    try {
      await opts.tracer?.onBlockStart?.(block, vm);
      await runBlock(vm, {
        block: this.withEngineReward(vm, this.executionView(block)),
        skipHeaderValidation: true,
        setHardfork: true,
        clearCache: false,
      });
    } catch (err) {
      if (err instanceof TraceAbort) throw err;
      if (!(err instanceof ReplayStop)) throw new BlockExecutionError(cleanReason(err));
    } finally {
      vm.events.off('beforeTx', atTx);
      vm.events.off('beforeTx', leave);
      vm.events.off('afterTx', leaveAfter);
      // Throws the tracer's abort (deadline passed, reader gone) if it asked to stop.
      detach?.();
    }
    if (inspectError !== undefined) throw inspectError;
    if (stop !== undefined) return inspected;
    if (after !== undefined && ran === after) return opts.inspect ? opts.inspect(vm) : undefined;
    return opts.inspect ? opts.inspect(vm) : undefined;
  }

  /**
   * Runs `work` on transaction `index` of `block` at its pre-state (the block's earlier transactions
   * and system writes applied) on a private VM over an overlay, nothing written. `run` executes the
   * transaction as the block does, once, with `tracer` attached.
   *
   * The VM is kept afterwards, positioned after that transaction, so a following call for a later
   * transaction of the same block continues from there instead of replaying the block from its start
   * (tracing a block's transactions one by one replays it once, not once per transaction).
   */
  async replayTransaction<T>(
    block: Block,
    index: number,
    work: (run: (tracer?: BlockTracer) => Promise<RunTxResult>) => Promise<T>,
  ): Promise<T> {
    const tx = block.transactions[index];
    if (!tx) throw new RangeError(`block ${block.header.number} has no transaction ${index}`);
    const view = this.executionView(block);
    const runOne = (vm: VM, t: TypedTransaction) =>
      runTx(vm, { tx: t, block: view, skipHardForkValidation: true, skipBlockGasLimitValidation: true });
    const key = bytesToHex(block.hash());
    // Taken out of the cache while in use: two requests never share a VM.
    let positioned = this.positioned.get(key);
    if (positioned !== undefined) this.positioned.delete(key);
    if (positioned !== undefined && positioned.next > index) positioned = undefined;
    positioned ??= await this.positionAtStart(block);
    if (positioned === undefined) return this.replayTransactionFromStart(block, index, work, runOne);
    const { vm } = positioned;
    try {
      for (; positioned.next < index; positioned.next++)
        await runOne(vm, block.transactions[positioned.next]);
    } catch (err) {
      throw new BlockExecutionError(cleanReason(err));
    }
    let ran = false;
    const result = await work(async (tracer) => {
      if (ran) throw new Error('a transaction runs once');
      ran = true;
      const detach = tracer ? attachTracer(vm, tracer) : undefined;
      try {
        return await runOne(vm, tx);
      } finally {
        detach?.();
      }
    });
    if (!ran) await runOne(vm, tx);
    // Kept only after a clean run: a failed or aborted one leaves the VM where nobody can trust it.
    positioned.next = index + 1;
    if (positioned.next < block.transactions.length) this.positioned.set(key, positioned);
    return result;
  }

  /**
   * A private VM over an overlay of `block`'s parent state with the block's opening system writes
   * applied, ready for its first transaction; undefined for blocks the library opens with more than
   * that (the DAO transition, block access lists, two-dimensional gas), which replay through `runBlock`.
   */
  private async positionAtStart(block: Block): Promise<{ vm: VM; next: number } | undefined> {
    const parent = this.chain.getHeader(block.header.parentHash);
    if (!parent) throw new Error(`parent of block ${block.header.number} is unknown`);
    const common = this.executionCommon();
    common.setHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp });
    if (common.isActivatedEIP(7928) || common.isActivatedEIP(8037)) return undefined;
    if (
      common.hardforkIsActiveOnBlock(Hardfork.Dao, block.header.number) &&
      block.header.number === common.hardforkBlock(Hardfork.Dao)
    )
      return undefined;
    const vm = await createVM({
      common,
      stateManager: openOverlayState(this.world, parent.stateRoot, common),
      blockchain: new AncestorHashes(this.chain, parent) as never,
    });
    await vm.evm.journal.checkpoint();
    await this.startBlock(vm, block.header);
    return { vm, next: 0 };
  }

  /** `replayTransaction` through `runBlock`, stopped before the transaction. */
  private async replayTransactionFromStart<T>(
    block: Block,
    index: number,
    work: (run: (tracer?: BlockTracer) => Promise<RunTxResult>) => Promise<T>,
    runOne: (vm: VM, tx: TypedTransaction) => Promise<RunTxResult>,
  ): Promise<T> {
    const tx = block.transactions[index];
    const result = await this.replay(block, {
      stopBeforeTx: index,
      inspect: (vm) =>
        work(async (tracer) => {
          const detach = tracer ? attachTracer(vm, tracer) : undefined;
          try {
            return await runOne(vm, tx);
          } finally {
            detach?.();
          }
        }),
    });
    return result as T;
  }

  /**
   * The system writes at the start of a block the builder fills: EIP-4788's beacon root and EIP-2935's
   * parent hash, each only when its contract has code.
   */
  async startBlock(vm: VM, header: BlockHeader): Promise<void> {
    const common = vm.common;
    if (common.isActivatedEIP(4788)) {
      const code = await vm.stateManager.getCode(BEACON_ROOTS_ADDRESS);
      if (code.length > 0) {
        const len = common.param('historicalRootsLength');
        const index = header.timestamp % len;
        await vm.stateManager.putStorage(
          BEACON_ROOTS_ADDRESS,
          wordBytes(index),
          bigIntToBytes(header.timestamp),
        );
        await vm.stateManager.putStorage(
          BEACON_ROOTS_ADDRESS,
          wordBytes(index + len),
          header.parentBeaconBlockRoot ?? new Uint8Array(32),
        );
        await vm.evm.journal.cleanup();
      }
    }
    if (common.isActivatedEIP(2935)) {
      const address = new Address(bigIntToAddressBytes(common.param('historyStorageAddress')));
      const code = await vm.stateManager.getCode(address);
      if (code.length > 0) {
        const slot = wordBytes((header.number - 1n) % common.param('historyServeWindow'));
        await vm.stateManager.putStorage(address, slot, header.parentHash);
        await vm.evm.journal.cleanup();
      }
    }
  }

  /**
   * The writes at the end of a block the builder filled: withdrawals (gwei credited, the account touched
   * even for zero) and the engine's block reward to the coinbase. The builder gathers EIP-7685 requests
   * after them, as `runBlock` does on import.
   */
  async finishBlock(vm: VM, block: Block): Promise<void> {
    for (const w of block.withdrawals ?? []) await credit(vm, w.address, w.amount * GWEI);
    if (block.withdrawals) await vm.evm.journal.cleanup();
    const reward = this.rules.blockReward(block.header);
    // The fee recipient: the PoW beneficiary, or BFT's mining beneficiary when one is configured.
    if (reward > 0n) await credit(vm, this.rules.feeRecipient(block.header), reward);
  }

  /**
   * A block the library pays the engine's reward for: proof-of-authority blocks (BFT's `blockreward`)
   * run as proof of work with the reward as the miner reward, paid to the view's coinbase (the fee
   * recipient) after the transactions and withdrawals and before the state root is taken. A zero
   * reward touches nothing, as Besu skips zero rewards.
   */
  private withEngineReward(vm: VM, view: Block): Block {
    if (!this.rules.executionCommon || view.common.consensusType() === 'pow') return view;
    const reward = this.rules.blockReward(view.header);
    if (reward === 0n) return view;
    // Every EIP that sets the miner reward (chainstart, Byzantium, Constantinople) gets this block's.
    const value = reward.toString();
    vm.common.updateParams({
      1: { minerReward: value },
      609: { minerReward: value },
      1013: { minerReward: value },
    });
    return Object.create(view, { common: { value: vm.common } }) as Block;
  }

  /** The Common the VM executes with (see `ConsensusRules.executionCommon`), with fast EIP lookups. */
  private executionCommon(): Common {
    const common = (this.rules.executionCommon ?? this.chain.common).copy();
    // The interpreter asks Common about EIPs at least twice per opcode; answer from a table.
    useFastCommonLookups(common);
    return common;
  }

  /** The block the VM runs: with the fee recipient as coinbase when the engine pays someone else. */
  private executionView(block: Block): Block {
    if (!this.rules.executionCommon) return block;
    const recipient = this.rules.feeRecipient(block.header);
    return recipient.equals(block.header.coinbase) ? block : withCoinbase(block, recipient);
  }

  private async positionOn(parent: BlockHeader): Promise<{ vm: VM; state: BlockState }> {
    if (!this.vm || !this.state) {
      this.state = this.world.openBlockState(parent.stateRoot);
      this.vm = await createVM({
        common: this.executionCommon(),
        stateManager: this.state,
        blockchain: this.hashes as never,
      });
      this.installInterpreter(this.vm, this.state);
      useJournalShortcuts(this.vm.evm as EVM);
    }
    const state = this.state;
    this.hashes.tip = parent;
    // On the parent's root the committed layer stays warm; on any other it starts again.
    state.reset(parent.stateRoot);
    return { vm: this.vm, state };
  }

  /**
   * Import and the block builder run each transaction's message call on the interpreter in
   * `fastCall/` where it can (see `fastCall/blockCall.ts` for the rule), the rest on the library's EVM.
   */
  private installInterpreter(vm: VM, state: BlockState): void {
    this.fastStats = installFastExecution(vm.evm as EVM, {
      state,
      blockHash: (n) => (this.hashes.tip ? this.chain.ancestorHash(this.hashes.tip, n) : undefined),
      enabled: () => this.useInterpreter && !this.tracing,
    });
  }

  /** After a failed execution: drop its pending nodes and everything the state held of the block. */
  private async reset(state: BlockState, parent: BlockHeader): Promise<void> {
    this.world.store.discard();
    state.discard();
    state.reset(parent.stateRoot);
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

async function credit(vm: VM, address: Address, amount: bigint): Promise<void> {
  const account = (await vm.stateManager.getAccount(address)) ?? new Account();
  account.balance += amount;
  await vm.evm.journal.putAccount(address, account);
}

/**
 * The sender of an executed transaction: from its public key, which the signature check cached, hashed
 * with the native keccak (the library's `getSenderAddress` hashes it again in JavaScript each call).
 */
function senderOf(tx: TypedTransaction): Address {
  return new Address(keccak256(tx.getSenderPublicKey()).slice(12));
}

function cleanReason(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  // The libraries append a long block description after the reason.
  return msg
    .replace(/\s*\(block (num|number)=.*$/s, '')
    .replace(/ -> .*$/s, '')
    .trim();
}

/**
 * `block` with its transactions root computed ahead of the library's block checks, which would build
 * it entry by entry in a trie (~0.7 ms a transaction): one synchronous pass gives the same root.
 */
function withTxTrieRoot(block: Block): Block {
  if (block.transactions.length === 0) return block;
  const cache = (block as unknown as { cache: { txTrieRoot?: Uint8Array } }).cache;
  cache.txTrieRoot ??= orderedTrieRoot(transactionEncodings(block), keccak256);
  return block;
}
