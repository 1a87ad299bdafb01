/**
 * Debug traces (debug_traceTransaction, debug_traceBlock*, debug_traceCall): replays a block (or runs a
 * call) with a tracer attached to each traced transaction only, writing the answer's JSON text to a
 * sink as it is produced. Struct logs open with the transaction's outcome, so for them the block is
 * first replayed untraced (cheap next to tracing) to learn each outcome.
 */

import { once } from 'node:events';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Block, BlockHeader } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { type Address, bytesToHex, equalsBytes } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { Lru } from '../util/lru.js';
import type { BlockProcessor } from './blockProcessor.js';
import type { CallRequest, CallSimulator, SimulationResult, StateOverrides } from './simulator.js';
import { attachTracer, type BlockTracer } from './tracer.js';
import type { TraceOptions } from './tracers/options.js';
import { Deadline, guardSink, type TextSink } from './tracers/sink.js';
import { StandardJsonTracer } from './tracers/standardJson.js';
import {
  createTxTraceWriter,
  needsOutcomeFirst,
  type TxOutcome,
  type TxTraceWriter,
} from './tracers/txTrace.js';

export function outcomeOfTx(result: RunTxResult): TxOutcome {
  const err = result.execResult.exceptionError;
  const reverted = err?.error === 'revert';
  return {
    gasUsed: result.totalGasSpent,
    failed: err !== undefined,
    reverted,
    output: err === undefined || reverted ? result.execResult.returnValue : new Uint8Array(),
    error: err?.error,
  };
}

function outcomeOfCall(result: SimulationResult): TxOutcome {
  return {
    gasUsed: result.gasUsed,
    failed: result.status !== 'success',
    reverted: result.status === 'revert',
    output: result.output,
  };
}

/** Sends each wanted transaction's trace to the sink, wrapped by `open`/`close`. */
class TraceDriver implements BlockTracer {
  /** The outcome of the one transaction traced, when it was learnt apart from the block's. */
  outcomeOverride: TxOutcome | undefined;
  private writer: TxTraceWriter | undefined;
  private detach: (() => void) | undefined;

  constructor(
    private readonly options: TraceOptions,
    private readonly out: TextSink,
    private readonly deadline: Deadline,
    private readonly outcomes: readonly TxOutcome[] | undefined,
    private readonly wanted: (index: number) => boolean,
    private readonly open: (tx: TypedTransaction, index: number) => string,
    private readonly close: string,
    private readonly coinbase: Address | undefined,
  ) {}

  async onTxStart(tx: TypedTransaction, index: number, vm: VM): Promise<void> {
    if (!this.wanted(index)) return;
    this.deadline.checkNow();
    const head = this.open(tx, index);
    if (head !== '') await this.out(head);
    const writer = createTxTraceWriter(
      this.options,
      this.out,
      this.deadline,
      this.outcomeOverride ?? this.outcomes?.[index],
      this.coinbase,
    );
    this.writer = writer;
    await writer.start(tx, vm);
    this.detach = attachTracer(vm, writer.hooks);
  }

  async onTxEnd(tx: TypedTransaction, _index: number, result: RunTxResult, vm: VM): Promise<void> {
    const writer = this.writer;
    if (!writer) return;
    this.writer = undefined;
    this.detach?.();
    this.detach = undefined;
    await writer.end(tx, outcomeOfTx(result), vm);
    if (this.close !== '') await this.out(this.close);
  }
}

/** Options of debug_standardTraceBlockToFile. */
export interface FileTraceOptions {
  /** Only this transaction is written (the others run untraced). */
  txHash?: Uint8Array;
  memory: boolean;
}

/** Blocks whose transaction outcomes are kept (struct logs open with them). */
const OUTCOME_BLOCKS = 64;

export class TraceService {
  /**
   * The outcomes of every transaction of recently traced stored blocks, by block hash: tracing a
   * block's transactions one by one replays it once for them, not once per transaction.
   */
  private readonly outcomeCache = new Lru<string, TxOutcome[]>(OUTCOME_BLOCKS);

  constructor(
    private readonly processor: BlockProcessor,
    private readonly simulator: CallSimulator,
    /** Who receives a block's fees (the prestate tracer reads it). */
    private readonly feeRecipient: (header: BlockHeader) => Address,
  ) {}

  /** The outcome of transactions 0 … `last` of `block`, from an untraced replay. */
  async outcomes(block: Block, last: number): Promise<TxOutcome[]> {
    const out: TxOutcome[] = [];
    await this.processor.replay(block, {
      tracer: {
        onTxEnd(_tx, _i, result) {
          out.push(outcomeOfTx(result));
        },
      },
      stopAfterTx: last,
    });
    return out;
  }

  /** Every transaction's outcome of a stored block, from the cache or one untraced replay. */
  private async blockOutcomes(block: Block): Promise<TxOutcome[]> {
    const key = bytesToHex(block.hash());
    const cached = this.outcomeCache.get(key);
    if (cached) return cached;
    const outcomes = await this.outcomes(block, block.transactions.length - 1);
    this.outcomeCache.set(key, outcomes);
    return outcomes;
  }

  /** `[{txHash, result}, …]` for every transaction of `block` (its parent must be known). */
  async traceBlock(block: Block, options: TraceOptions, sink: TextSink): Promise<void> {
    const out = guardSink(sink);
    const n = block.transactions.length;
    const deadline = new Deadline(options.timeoutMs);
    const outcomes = n > 0 && needsOutcomeFirst(options) ? await this.blockOutcomes(block) : undefined;
    await out('[');
    if (n > 0) {
      const driver = new TraceDriver(
        options,
        out,
        deadline,
        outcomes,
        () => true,
        (tx, i) => `${i === 0 ? '' : ','}{"txHash":"${bytesToHex(tx.hash())}","result":`,
        '}',
        this.feeRecipient(block.header),
      );
      await this.processor.replay(block, { tracer: driver, stopAfterTx: n - 1 });
    }
    await out(']');
  }

  /**
   * The trace of transaction `index` of `block`: the block is replayed up to it and the transaction
   * run traced; struct logs first run it once untraced (another replay) for the outcome they open with.
   */
  async traceTransaction(block: Block, index: number, options: TraceOptions, sink: TextSink): Promise<void> {
    const out = guardSink(sink);
    const deadline = new Deadline(options.timeoutMs);
    const outcome = needsOutcomeFirst(options) ? (await this.blockOutcomes(block))[index] : undefined;
    const driver = new TraceDriver(
      options,
      out,
      deadline,
      undefined,
      () => true,
      () => '',
      '',
      this.feeRecipient(block.header),
    );
    driver.outcomeOverride = outcome;
    await this.processor.replayTransaction(block, index, (run) => run(driver));
  }

  /**
   * EIP-3155 traces of `block`'s transactions, one file per transaction under `dir` (created when
   * missing), named as Besu names them; resolves with the paths in transaction order. Each file is
   * written as its transaction runs and closed before the next starts.
   */
  async traceBlockToFiles(block: Block, options: FileTraceOptions, dir: string): Promise<string[]> {
    mkdirSync(dir, { recursive: true });
    const paths: string[] = [];
    const n = block.transactions.length;
    if (n === 0) return paths;
    const blockPrefix = bytesToHex(block.hash()).slice(0, 10);
    const wanted = (tx: TypedTransaction): boolean =>
      options.txHash === undefined || equalsBytes(tx.hash(), options.txHash);
    let file: WriteStream | undefined;
    let detach: (() => void) | undefined;
    let started = 0;
    const deadline = new Deadline(undefined);
    const driver: BlockTracer = {
      onTxStart: (tx, index, vm) => {
        if (!wanted(tx)) return;
        const path = join(
          dir,
          `block_${blockPrefix}-${index}-${bytesToHex(tx.hash()).slice(0, 10)}-${Date.now()}`,
        );
        paths.push(path);
        const stream = createWriteStream(path);
        file = stream;
        started = performance.now();
        detach = attachTracer(
          vm,
          new StandardJsonTracer(
            options.memory,
            (line) => (stream.write(`${line}\n`) ? undefined : once(stream, 'drain').then(() => undefined)),
            deadline,
          ),
        );
      },
      onTxEnd: async (tx, _index, result) => {
        const stream = file;
        if (!stream) return;
        file = undefined;
        detach?.();
        detach = undefined;
        const nanos = Math.round((performance.now() - started) * 1e6);
        const outcome = outcomeOfTx(result);
        const output = Buffer.from(outcome.output).toString('hex');
        stream.write(
          `{"output":"${output}","gasUsed":"0x${outcome.gasUsed.toString(16)}","time":${nanos}}\n`,
        );
        await new Promise<void>((resolve, reject) =>
          stream.end((err?: Error | null) => (err ? reject(err) : resolve())),
        );
      },
    };
    try {
      await this.processor.replay(block, { tracer: driver, stopAfterTx: n - 1 });
    } finally {
      file?.destroy();
    }
    return paths;
  }

  /**
   * The trace of a call on `header`'s state, as Besu runs debug_traceCall: future nonces and an
   * insufficient balance allowed. A call that cannot run fails before anything is written.
   */
  async traceCall(
    header: BlockHeader,
    call: CallRequest,
    overrides: StateOverrides | undefined,
    options: TraceOptions,
    sink: TextSink,
  ): Promise<void> {
    const out = guardSink(sink);
    const deadline = new Deadline(options.timeoutMs);
    const base = { overrides, allowExceedingBalance: true };
    const outcome = needsOutcomeFirst(options)
      ? outcomeOfCall(await this.simulator.simulate(header, call, base))
      : undefined;
    const driver = new TraceDriver(
      options,
      out,
      deadline,
      outcome ? [outcome] : undefined,
      () => true,
      () => '',
      '',
      this.feeRecipient(header),
    );
    await this.simulator.simulate(header, call, { ...base, tracer: driver });
  }
}
