/**
 * The one block builder every engine uses. It runs inside the importer's queue on the importer's warm
 * VM and state (no second state, no re-decoding: transactions come from the pool already decoded with
 * their senders recovered), picks pool transactions in fee and nonce order up to the gas and blob
 * limits, fills every execution field of the header and returns an unsealed block plus what the commit
 * needs (receipts, senders, state writes). The start- and end-of-block writes (system calls,
 * withdrawals, the engine's reward) are the block processor's; Prague's execution requests are
 * `requests.ts`'. Payload attributes (withdrawals, beacon root) and the exact transaction list of
 * `testing_buildBlockV1` come in `BuildExtras`. The engine seals the block;
 * `BlockImporter.commitBuilt` stores it without executing it again.
 */
import {
  Block,
  type BlockHeader,
  createBlockHeader,
  genRequestsRoot,
  genWithdrawalsTrieRoot,
} from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { Blob4844Tx, createMinimal4844TxFromNetworkWrapper, type TypedTransaction } from '@ethereumjs/tx';
import {
  type Address,
  type CLRequest,
  type CLRequestType,
  KECCAK256_RLP,
  type Withdrawal,
} from '@ethereumjs/util';
import { Bloom, type RunTxResult, type VM } from '@ethereumjs/vm';
import { rememberTransactionEncodings } from '../chain/blockEncoding.js';
import type { ChainStore } from '../chain/chainStore.js';
import { type BuiltReceipt, encodeBuiltReceipt } from '../chain/receiptEncoding.js';
import { keccak256, sha256 } from '../crypto/index.js';
import { runBlockTx } from '../execution/fastCall/blockTx.js';
import type { BlockImporter, BuiltExecution } from '../execution/importer.js';
import type { PooledTx, TxPool } from '../txpool/pool.js';
import { OrderedTrie } from '../util/orderedTrieRoot.js';
import { type CollectWindow, PoolArrivals } from './arrivals.js';
import type { SealingEngine } from './engine.js';
import { accumulateRequests, type ReceiptLog } from './requests.js';
import { effectiveTip, maxFeePerGas, TxSelection } from './selection.js';

export interface BuilderOptions {
  /** --min-gas-price, read at every block (miner_setMinGasPrice changes it). */
  minGasPrice(): bigint;
  /** --min-priority-fee, read at every block. */
  minPriorityFee(): bigint;
  /** --target-gas-limit, read at every block (miner_changeTargetGasLimit changes it). */
  targetGasLimit(): bigint | undefined;
  /**
   * Milliseconds transaction selection may take for block `number` (--poa-block-txs-selection-max-time
   * of the block period on PoA networks); past it the block goes out with what was selected, the
   * rest staying in the pool. Unlimited when absent or undefined.
   */
  selectionTimeLimitMs?(number: bigint): number | undefined;
}

export interface BuiltBlock {
  /** Every field filled except the seal. */
  block: Block;
  execution: BuiltExecution;
  /** Transactions the block carries (for logs and figures). */
  txCount: number;
  /** EIP-7685 requests (Prague on), in type order. */
  requests?: CLRequest<CLRequestType>[];
  /** Priority fees the fee recipient earns, in wei (the engine API's `blockValue`). */
  blockValue: bigint;
  /** The pool entries of the included transactions (blob sidecars stay there). */
  included: PooledTx[];
  /** The pool's next sequence number when the builder read it: later arrivals were not considered. */
  poolSeq?: number;
  /** Milliseconds of the build spent waiting for arrivals (BuildExtras.collect). */
  waitedMs: number;
}

/**
 * What a proof-of-stake payload adds to a block (the consensus client's payload attributes), and the
 * transactions of `testing_buildBlockV1` when it names them.
 */
export interface BuildExtras {
  withdrawals?: Withdrawal[];
  parentBeaconBlockRoot?: Uint8Array;
  /** Exactly these transactions, in this order; the first that cannot run fails the build. */
  transactions?: PooledTx[];
  /** The pool's arrivals are executed into the block as they come until it closes (arrivals.ts). */
  collect?: CollectWindow;
}

/** A transaction named in `BuildExtras.transactions` could not be included. */
export class BuildTransactionError extends Error {
  override name = 'BuildTransactionError';
}

export class BuildAbortedError extends Error {
  override name = 'BuildAbortedError';
  constructor() {
    super('block building abandoned');
  }
}

const MIN_GAS_LIMIT = 5000n;
const TX_GAS = 21000n;
/**
 * Milliseconds of transaction execution between two yields to the event loop while building: requests
 * (eth_sendRawTransaction above all) are answered in between, so building a block does not hold them
 * up for longer than this.
 */
const YIELD_AFTER_MS = 8;

/**
 * A block's close brings the state tries up to it in steps of this long at most (BlockState.settle),
 * answering requests in between: in one piece it held them up to 65 ms after a block of thousands of
 * transactions.
 */
const CLOSE_STEP_MS = 4;

/**
 * Besu's gas limit targeting: move towards the target by less than parent/1024 per block (the bound
 * header validation enforces), keep the parent's limit without a target.
 */
export function nextGasLimit(parentGasLimit: bigint, target: bigint | undefined): bigint {
  if (target === undefined || target === parentGasLimit) return parentGasLimit;
  const step = parentGasLimit / 1024n - 1n;
  if (step <= 0n) return parentGasLimit;
  if (target > parentGasLimit) return parentGasLimit + step < target ? parentGasLimit + step : target;
  const down = parentGasLimit - step > target ? parentGasLimit - step : target;
  return down < MIN_GAS_LIMIT ? MIN_GAS_LIMIT : down;
}

export class BlockBuilder {
  constructor(
    private readonly chain: ChainStore,
    private readonly importer: BlockImporter,
    private readonly pool: TxPool | undefined,
    private readonly opts: BuilderOptions,
  ) {}

  /** Builds a child of `parent` at `timestamp` for `engine`. Throws BuildAbortedError when `signal` fires. */
  async build(
    parent: BlockHeader,
    engine: SealingEngine,
    timestamp: bigint,
    signal?: AbortSignal,
    extras: BuildExtras = {},
  ): Promise<BuiltBlock> {
    const number = parent.number + 1n;
    const common = this.chain.common.copy();
    common.setHardforkBy({ blockNumber: number, timestamp });
    const withdrawals = common.isActivatedEIP(4895) ? (extras.withdrawals ?? []) : undefined;
    const fields = engine.childHeaderFields(parent, timestamp);
    const baseFee = common.isActivatedEIP(1559)
      ? parent.common.isActivatedEIP(1559)
        ? parent.calcNextBaseFee()
        : common.param('initialBaseFee')
      : undefined;
    const blobs = common.isActivatedEIP(4844);
    const headerData = {
      parentHash: parent.hash(),
      number,
      timestamp,
      gasLimit: nextGasLimit(parent.gasLimit, this.opts.targetGasLimit()),
      coinbase: fields.coinbase,
      difficulty: fields.difficulty,
      extraData: fields.extraData,
      nonce: fields.nonce,
      mixHash: fields.mixHash,
      baseFeePerGas: baseFee,
      withdrawalsRoot: withdrawals
        ? withdrawals.length === 0
          ? KECCAK256_RLP
          : await genWithdrawalsTrieRoot(withdrawals, new MerklePatriciaTrie({ common }))
        : undefined,
      excessBlobGas: blobs
        ? parent.common.isActivatedEIP(4844)
          ? parent.calcNextExcessBlobGas(common)
          : 0n
        : undefined,
      blobGasUsed: blobs ? 0n : undefined,
      parentBeaconBlockRoot: common.isActivatedEIP(4788)
        ? (extras.parentBeaconBlockRoot ?? new Uint8Array(32))
        : undefined,
    };
    const headerOpts = { common, skipConsensusFormatValidation: true };
    const draft = createBlockHeader(headerData, headerOpts);
    const execHeader = engine.executionHeader ? engine.executionHeader(draft) : draft;
    const execBlock = new Block(execHeader, [], [], withdrawals);

    // The pool applies every head event first: lanes start at the parent's account nonces.
    if (!extras.transactions && this.pool) await this.pool.settled();
    const pending = extras.transactions ? [extras.transactions] : this.pool ? this.pool.pendingLanes() : [];
    // Nothing pending: the block is built empty at once (its work is handed out; the producer holds
    // its seal and builds again when a transaction arrives).
    const arrivals =
      this.pool && extras.collect && !extras.transactions && pending.length > 0
        ? new PoolArrivals(this.pool, extras.collect, () => this.importer.othersQueued)
        : undefined;
    let poolSeq = this.pool?.nextSeq;
    const processor = this.importer.processor;
    const run = this.importer.executeOnParent(parent, async (vm, state) => {
      vm.common.setHardforkBy({ blockNumber: number, timestamp });
      await vm.evm.journal.checkpoint();
      if (arrivals) {
        // The state tries take what the block executed so far (the state manager then applies and
        // hashes only what changes after, when the block closes).
        arrivals.workAhead = (deadline) => state.settle(deadline);
      }
      try {
        await processor.startBlock(vm, execHeader);
        const limit = this.opts.selectionTimeLimitMs?.(number);
        // Selection time counts from when the block is due (arrivals before that are taken as they come).
        const start = Math.max(performance.now(), arrivals ? (extras.collect?.due ?? 0) : 0);
        const deadline = limit === undefined ? Number.POSITIVE_INFINITY : start + limit;
        const out = await this.fill(
          vm,
          common,
          execBlock,
          pending,
          baseFee ?? 0n,
          signal,
          extras.transactions !== undefined,
          deadline,
          arrivals,
        );
        // The reward goes to the engine's fee recipient (the header's coinbase under proof of work).
        await processor.finishBlock(vm, new Block(draft, [], [], execBlock.withdrawals));
        const requests = common.isActivatedEIP(7685)
          ? await accumulateRequests(vm, common, depositContractOf(common), out.logs)
          : undefined;
        const requestsHash = requests ? genRequestsRoot(requests, sha256) : undefined;
        await vm.evm.journal.commit();
        // The roots are long passes over a full block: requests are answered in between, and between
        // the steps of bringing the state tries up to the block (what the pauses left to do).
        await yieldToLoop();
        while (!state.settle(performance.now() + CLOSE_STEP_MS)) {
          await yieldToLoop();
          if (signal?.aborted) throw new BuildAbortedError();
        }
        const stateRoot = state.stateRootSync();
        return { result: { ...out, stateRoot, requestsHash, requests }, stateRoot };
      } catch (err) {
        await vm.evm.journal.revert();
        throw err;
      }
    });
    const { result, stateWrites } = await run.finally(() => arrivals?.close());
    if (arrivals) poolSeq = arrivals.seqRead;

    const header = createBlockHeader(
      {
        ...headerData,
        stateRoot: result.stateRoot,
        transactionsTrie: result.transactionsRoot,
        receiptTrie: result.receiptsRoot,
        logsBloom: result.bloom,
        gasUsed: result.gasUsed,
        blobGasUsed: blobs ? result.blobGasUsed : undefined,
        requestsHash: result.requestsHash,
      },
      headerOpts,
    );
    const block = new Block(header, result.txs, [], withdrawals);
    return {
      block,
      execution: { receipts: result.receipts, senders: result.senders, stateWrites },
      txCount: result.txs.length,
      requests: result.requests,
      blockValue: result.blockValue,
      included: result.included,
      poolSeq,
      waitedMs: arrivals?.waitedMs ?? 0,
    };
  }

  /** Executes pool transactions on the VM's state (inside the importer queue). */
  private async fill(
    vm: VM,
    common: Common,
    execBlock: Block,
    pending: PooledTx[][],
    baseFee: bigint,
    signal: AbortSignal | undefined,
    strict = false,
    deadline = Number.POSITIVE_INFINITY,
    arrivals?: PoolArrivals,
  ) {
    const header = execBlock.header;

    const minGasPrice = this.opts.minGasPrice();
    const minTip = this.opts.minPriorityFee();
    const blobGasPerBlob = common.isActivatedEIP(4844) ? common.param('blobGasPerBlob') : 0n;
    const maxBlobGas = common.isActivatedEIP(4844) ? common.getBlobGasSchedule().maxBlobGasPerBlock : 0n;
    const eip8037 = common.isActivatedEIP(8037);
    const gasLimit = header.gasLimit;

    const txs: TypedTransaction[] = [];
    const encodings: Uint8Array[] = [];
    const included: PooledTx[] = [];
    let blockValue = 0n;
    const receipts: Uint8Array[] = [];
    // Both tries take each entry as it is included (their completed parts are hashed then, while
    // arrivals are still coming in): closing the block only combines them.
    const receiptsTrie = new OrderedTrie(keccak256);
    const transactionsTrie = new OrderedTrie(keccak256);
    const logs: ReceiptLog[] = [];
    const senders: Address[] = [];
    const bloom = new Bloom(undefined, common);
    let gasUsed = 0n;
    let regularGas = 0n;
    let stateGas = 0n;
    let receiptGas = 0n;
    let blobGasUsed = 0n;

    /** Adds an executed transaction to the block: its body (without blob sidecars), receipt and logs. */
    const take = (entry: PooledTx, res: RunTxResult) => {
      const tx = entry.tx;
      const bare =
        tx instanceof Blob4844Tx && tx.blobs !== undefined
          ? createMinimal4844TxFromNetworkWrapper(tx, { common: tx.common })
          : tx;
      txs.push(bare);
      const serialized = bare.serialize();
      encodings.push(serialized);
      transactionsTrie.push(serialized);
      included.push(entry);
      bloom.or(res.bloom);
      for (const log of res.receipt.logs) logs.push(log as ReceiptLog);
      const encoded = encodeBuiltReceipt(res.receipt as BuiltReceipt, tx.type);
      receipts.push(encoded);
      receiptsTrie.push(encoded);
      senders.push(entry.sender);
    };

    // Each sender's next nonce after what the block carries: where its later arrivals' lanes start.
    const nextNonce = new Map<string, bigint>();
    let lanes: PooledTx[][] | undefined = pending;
    let lastYield = performance.now();
    fill: while (lanes) {
      const selection = new TxSelection(lanes, baseFee);
      for (let entry = selection.peek(); entry; entry = selection.peek()) {
        if (signal?.aborted) throw new BuildAbortedError();
        // Out of selection time: the block carries what is in, the rest waits in the pool.
        if (!strict && performance.now() >= deadline) break fill;
        const tx = entry.tx;
        const tip = effectiveTip(tx, baseFee);
        if (strict) {
          // Named transactions: each runs or the build fails with the reason.
          let res: RunTxResult;
          try {
            res = await runBlockTx(vm, { tx, block: execBlock, blockGasUsed: receiptGas });
          } catch (err) {
            throw new BuildTransactionError(
              ((err as Error).message.split('\n')[0] ?? 'invalid transaction')
                .replace(/\s*\(vm hf=.*$/s, '')
                .replace(/ -> .*$/s, ''),
            );
          }
          selection.accept();
          gasUsed += res.blockGasSpent;
          receiptGas += res.totalGasSpent;
          blobGasUsed += tx instanceof Blob4844Tx ? BigInt(tx.numBlobs()) * blobGasPerBlob : 0n;
          blockValue += (tip > 0n ? tip : 0n) * res.totalGasSpent;
          take(entry, res);
          continue;
        }
        if (gasLimit - gasUsed < TX_GAS) break fill;
        // Local transactions skip the price floors, as Besu gives them priority.
        if (
          tip < 0n ||
          maxFeePerGas(tx) < baseFee ||
          (!entry.local && (tip < minTip || baseFee + tip < minGasPrice))
        ) {
          selection.skipSender();
          continue;
        }
        if (tx.gasLimit > gasLimit - gasUsed) {
          selection.skipSender();
          continue;
        }
        const txBlobGas = tx instanceof Blob4844Tx ? BigInt(tx.numBlobs()) * blobGasPerBlob : 0n;
        if (txBlobGas > 0n && blobGasUsed + txBlobGas > maxBlobGas) {
          selection.skipSender();
          continue;
        }
        let res: RunTxResult;
        try {
          res = await runBlockTx(vm, { tx, block: execBlock, blockGasUsed: receiptGas });
        } catch {
          // Invalid on this state (nonce, balance, …): it leaves the pool, its sender's later nonces wait.
          this.pool?.remove(entry.hash);
          selection.skipSender();
          continue;
        }
        selection.accept();
        nextNonce.set(entry.senderHex, tx.nonce + 1n);
        if (eip8037 && res.txRegularGas !== undefined) {
          regularGas += res.txRegularGas;
          stateGas += res.txStateGas ?? 0n;
          gasUsed = regularGas > stateGas ? regularGas : stateGas;
        } else gasUsed += res.blockGasSpent;
        receiptGas += res.totalGasSpent;
        blobGasUsed += txBlobGas;
        blockValue += tip * res.totalGasSpent;
        take(entry, res);
        if (performance.now() - lastYield >= YIELD_AFTER_MS) {
          await yieldToLoop();
          lastYield = performance.now();
        }
      }
      lanes = strict ? undefined : await arrivals?.next(nextNonce, signal);
      if (signal?.aborted) throw new BuildAbortedError();
    }
    await yieldToLoop();
    rememberTransactionEncodings(txs, encodings);
    return {
      txs,
      included,
      blockValue,
      receipts,
      logs,
      senders,
      gasUsed,
      blobGasUsed,
      bloom: bloom.bitvector,
      receiptsRoot: receiptsTrie.root(),
      transactionsRoot: transactionsTrie.root(),
    };
  }
}

/** Lets the event loop answer what arrived (eth_sendRawTransaction above all) before going on. */
function yieldToLoop(): Promise<void> {
  return new Promise<void>((r) => setImmediate(r));
}

/** The chain's `depositContractAddress`, as the library's block execution reads it. */
function depositContractOf(common: Common): string | undefined {
  return (common as unknown as { _chainParams: { depositContractAddress?: string } })._chainParams
    .depositContractAddress;
}
