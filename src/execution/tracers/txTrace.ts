/**
 * One transaction's trace as a writer: hooks attached to the EVM while that transaction runs, and the
 * text written before and after it. The tracers under this folder produce Besu's JSON themselves so a
 * trace goes to its reader as it is produced.
 */
import type { TypedTransaction } from '@ethereumjs/tx';
import type { Address } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { BlockTracer } from '../tracer.js';
import { CallTracer } from './callTracer.js';
import { FourByteTracer } from './fourByte.js';
import type { TraceOptions, TxOutcome } from './options.js';

export type { TxOutcome } from './options.js';

import { PrestateTracer } from './prestate.js';
import type { Deadline, TextSink } from './sink.js';
import { StructLogTracer } from './structLog.js';

export interface TxTraceWriter {
  /** Attached to the EVM only while the transaction runs. */
  readonly hooks: BlockTracer;
  /** Before the transaction runs, on its pre-state. */
  start(tx: TypedTransaction, vm: VM): Promise<void> | undefined;
  /** After it ran, on its post-state. */
  end(tx: TypedTransaction, outcome: TxOutcome, vm: VM): Promise<void> | undefined;
}

function hexNoPrefix(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.length).toString('hex');
}

/**
 * Struct logs: `{gas, failed, returnValue, structLogs}`. Besu puts the outcome first, so it must be
 * known before the first opcode is written: the caller runs the transaction once untraced for it.
 */
class StructLogWriter implements TxTraceWriter {
  readonly hooks: StructLogTracer;
  constructor(
    private readonly out: TextSink,
    options: TraceOptions,
    deadline: Deadline,
    private readonly summary: TxOutcome,
  ) {
    this.hooks = new StructLogTracer(options.structLog, out, deadline);
  }

  start(): Promise<void> | undefined {
    const s = this.summary;
    return this.out(
      `{"gas":${s.gasUsed},"failed":${s.failed},"returnValue":"${hexNoPrefix(s.output)}","structLogs":[`,
    );
  }

  end(): Promise<void> | undefined {
    return this.out(']}');
  }
}

/** Tracers whose per-transaction result is small enough to build whole (call frames, pre-state, selectors). */
interface WholeResultTracer extends BlockTracer {
  start?(tx: TypedTransaction, vm: VM): Promise<void>;
  result(tx: TypedTransaction, outcome: TxOutcome, vm: VM): Promise<string> | string;
}

class WholeResultWriter implements TxTraceWriter {
  constructor(
    private readonly out: TextSink,
    readonly hooks: WholeResultTracer,
  ) {}

  start(tx: TypedTransaction, vm: VM): Promise<void> | undefined {
    return this.hooks.start?.(tx, vm);
  }

  async end(tx: TypedTransaction, outcome: TxOutcome, vm: VM): Promise<void> {
    await this.out(await this.hooks.result(tx, outcome, vm));
  }
}

/** Whether the tracer needs the transaction's outcome before it runs (struct logs do). */
export function needsOutcomeFirst(options: TraceOptions): boolean {
  return options.tracer === 'structLogs';
}

export function createTxTraceWriter(
  options: TraceOptions,
  out: TextSink,
  deadline: Deadline,
  summary: TxOutcome | undefined,
  coinbase?: Address,
): TxTraceWriter {
  switch (options.tracer) {
    case 'structLogs':
      if (!summary) throw new Error('struct logs need the outcome first');
      return new StructLogWriter(out, options, deadline, summary);
    case 'callTracer':
      return new WholeResultWriter(out, new CallTracer(options, deadline));
    case 'prestateTracer':
      return new WholeResultWriter(out, new PrestateTracer(options, deadline, coinbase));
    case '4byteTracer':
      return new WholeResultWriter(out, new FourByteTracer(deadline));
  }
}
