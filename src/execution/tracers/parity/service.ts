/**
 * The Parity-style tracing service behind the TRACE group: replays stored blocks over an overlay of
 * their parent's state (nothing is written) with the frame tracer, and turns each transaction's frames
 * into flat traces, a vmTrace and a state diff as Besu does. Results are handed out one transaction
 * (or one trace) at a time through callbacks, so a caller can write them out as they come and a
 * block's whole answer need not be held.
 */
import type { Block, BlockHeader } from '@ethereumjs/block';
import { bytesToHex } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { BlockProcessor } from '../../blockProcessor.js';
import type { ConsensusRules } from '../../consensusRules.js';
import { type CallRequest, type CallSimulator, InvalidSimulationError } from '../../simulator.js';
import type { BlockTracer } from '../../tracer.js';
import { type FlatTraceJson, flatTraces } from './flat.js';
import { FrameTracer, type TracedTransaction } from './frames.js';
import { rewardTraces } from './rewards.js';
import type { StateDiffJson } from './stateDiff.js';
import { type VmTraceJson, vmTrace } from './vmTrace.js';

export interface TraceTypes {
  trace: boolean;
  vmTrace: boolean;
  stateDiff: boolean;
}

/** One transaction of trace_replayBlockTransactions (Besu's member order). */
export interface ReplayJson {
  output: string;
  revertReason?: string;
  stateDiff: StateDiffJson | null;
  trace: FlatTraceJson[];
  transactionHash: string;
  vmTrace: VmTraceJson | null;
}

/** trace_call, trace_callMany and trace_rawTransaction's answer for one call. */
export interface CallTraceJson {
  output: string;
  stateDiff: StateDiffJson | null;
  trace: FlatTraceJson[];
  vmTrace: VmTraceJson | null;
}

/** A traced call could not run as a transaction (Besu answers the call family with an internal error). */
export class TraceCallError extends Error {
  override name = 'TraceCallError';
}

export class ParityTracer {
  constructor(
    private readonly processor: BlockProcessor,
    private readonly rules: ConsensusRules,
  ) {}

  /** Replays `block`, handing each transaction's result to `each` in order. */
  async replayTransactions(
    block: Block,
    types: TraceTypes,
    each: (result: ReplayJson) => void | Promise<void>,
  ): Promise<void> {
    const tracer = new FrameTracer({ vm: types.vmTrace, stateDiff: types.stateDiff }, (traced) =>
      each(replayResult(traced, types)),
    );
    if (block.transactions.length > 0)
      await this.processor.replay(block, { tracer, stopAfterTx: block.transactions.length - 1 });
    if (tracer.failure !== undefined) throw tracer.failure;
  }

  /**
   * The flat traces of `block` (trace_block, trace_filter) or of its transaction `only`
   * (trace_transaction, trace_get), with block members; `rewards` appends the reward traces.
   */
  async blockTraces(
    block: Block,
    each: (trace: FlatTraceJson) => void | Promise<void>,
    opts: { rewards: boolean; only?: number },
  ): Promise<void> {
    const info = { hash: bytesToHex(block.hash()), number: Number(block.header.number) };
    if (block.transactions.length > 0) {
      const tracer = new FrameTracer({ vm: false }, async (traced) => {
        for (const t of flatTraces(traced, { creationMethod: true, block: info })) await each(t);
      });
      const only = opts.only;
      if (only === undefined) {
        // Nothing after the last transaction matters: no rewards, no state root to check.
        await this.processor.replay(block, { tracer, stopAfterTx: block.transactions.length - 1 });
      } else {
        // One transaction on its pre-state (a following one of the same block continues from there).
        const hooks: BlockTracer = {
          onTxStart: (tx, _index, vm) => tracer.onTxStart(tx, only, vm),
          onTxEnd: (tx, _index, result) => tracer.onTxEnd(tx, only, result),
          onEnter: (message) => tracer.onEnter(message),
          onExit: (result) => tracer.onExit(result),
        };
        await this.processor.replayTransaction(block, only, (run) => run(hooks));
      }
      if (tracer.failure !== undefined) throw tracer.failure;
    }
    if (opts.rewards) for (const t of rewardTraces(block, this.rules)) await each(t);
  }
}

/**
 * trace_call, trace_callMany, trace_rawTransaction: `calls` run one after another on `header`'s state
 * (each sees the writes of those before it), each traced with its own types.
 */
export async function traceCalls(
  simulator: CallSimulator,
  header: BlockHeader,
  calls: ReadonlyArray<{ call: CallRequest; types: TraceTypes }>,
): Promise<CallTraceJson[]> {
  const traced: Array<TracedTransaction | undefined> = calls.map(() => undefined);
  const items = calls.map(({ call, types }, i) => ({
    call,
    tracer: new FrameTracer({ vm: types.vmTrace, stateDiff: types.stateDiff }, (t) => {
      traced[i] = t;
    }),
  }));
  try {
    await simulator.simulateSequence(header, items);
  } catch (err) {
    if (err instanceof InvalidSimulationError) throw new TraceCallError(err.message);
    throw err;
  }
  for (const { tracer } of items) if (tracer.failure !== undefined) throw tracer.failure;
  return calls.map(({ types }, i) => {
    const t = traced[i];
    if (!t) throw new TraceCallError('the call produced no trace');
    return callTraceResult(t, types);
  });
}

/** The replay entry of one traced transaction. */
export function replayResult(traced: TracedTransaction, types: TraceTypes): ReplayJson {
  const out: ReplayJson = {
    output: bytesToHex(traced.outcome.output),
    stateDiff: null,
    trace: [],
    transactionHash: bytesToHex(traced.tx.hash()),
    vmTrace: null,
  };
  if (traced.outcome.revertReason) {
    const { output, ...rest } = out;
    return {
      output,
      revertReason: bytesToHex(traced.outcome.revertReason),
      ...rest,
      ...parts(traced, types, true),
    };
  }
  return { ...out, ...parts(traced, types, true) };
}

/** The answer of the call family for one traced call (no creation method, no block members). */
export function callTraceResult(traced: TracedTransaction, types: TraceTypes): CallTraceJson {
  const output = traced.outcome.revertReason ?? traced.outcome.output;
  const p = parts(traced, types, false);
  return { output: bytesToHex(output), stateDiff: p.stateDiff, trace: p.trace, vmTrace: p.vmTrace };
}

function parts(
  traced: TracedTransaction,
  types: TraceTypes,
  creationMethod: boolean,
): Pick<ReplayJson, 'stateDiff' | 'trace' | 'vmTrace'> {
  return {
    stateDiff: types.stateDiff && traced.frames.length > 0 ? (traced.stateDiff ?? null) : null,
    trace: types.trace ? flatTraces(traced, { creationMethod }) : [],
    vmTrace: types.vmTrace ? vmTrace(traced) : null,
  };
}

export type { VM };
