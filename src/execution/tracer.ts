/**
 * The hooks a tracer gets while the block processor executes a block (import, replay). Struct-log,
 * call-frame, prestate and parity tracers implement the hooks they need; every hook is optional and
 * may return a promise (the EVM waits for it), so a tracer can read state at that point.
 */
import type { Block } from '@ethereumjs/block';
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { RunTxResult, VM } from '@ethereumjs/vm';

export interface BlockTracer {
  /** Before the block's system calls and transactions. */
  onBlockStart?(block: Block, vm: VM): void | Promise<void>;
  /** Before transaction `index` runs; state is its pre-state. */
  onTxStart?(tx: TypedTransaction, index: number, vm: VM): void | Promise<void>;
  /** After transaction `index` ran (its state changes applied). */
  onTxEnd?(tx: TypedTransaction, index: number, result: RunTxResult, vm: VM): void | Promise<void>;
  /** A call or creation frame begins (the transaction's own frame first). */
  onEnter?(message: Message): void | Promise<void>;
  /** The innermost open frame ends. */
  onExit?(result: EVMResult): void | Promise<void>;
  /** One opcode is about to run. Attached only when the tracer has this hook: it slows the EVM a lot. */
  onStep?(step: InterpreterStep): void | Promise<void>;
}

/**
 * Thrown by a tracer to stop the traced execution (its deadline passed, its reader went away): the
 * replay and the simulator let it through unchanged instead of reporting a failed block or call.
 */
export class TraceAbort extends Error {
  override name = 'TraceAbort';
}

type Listener = (data: never, resolve?: (result?: unknown) => void) => void;

/**
 * Attaches `tracer` to `vm`'s events; returns the function that detaches it. Transaction indices count
 * from 0 at the first `beforeTx` after attaching. A hook that throws a TraceAbort stops the execution:
 * at once when it throws synchronously, at the next event when its promise rejects (the EVM cannot be
 * failed from a promise), and at the latest when the tracer is detached, which then throws it.
 */
export function attachTracer(vm: VM, tracer: BlockTracer): () => void {
  let index = -1;
  let failure: TraceAbort | undefined;
  const vmListeners: Array<[string, Listener]> = [];
  const evmListeners: Array<[string, Listener]> = [];
  const wrap =
    <T>(fn: (data: T) => void | Promise<void>): Listener =>
    (data: never, resolve?: (result?: unknown) => void) => {
      if (failure) throw failure;
      // A synchronous throw rejects the EVM's wait and aborts the run.
      const out = fn(data as T);
      if (out instanceof Promise)
        out.then(
          () => resolve?.(),
          (err: unknown) => {
            if (err instanceof TraceAbort) failure = err;
            resolve?.();
          },
        );
      else resolve?.();
    };
  const { onTxStart, onTxEnd, onEnter, onExit, onStep } = tracer;
  if (onTxStart || onTxEnd) {
    vmListeners.push([
      'beforeTx',
      wrap((tx: TypedTransaction) => {
        index++;
        return onTxStart?.call(tracer, tx, index, vm);
      }),
    ]);
  }
  if (onTxEnd) {
    vmListeners.push([
      'afterTx',
      wrap((result: RunTxResult & { transaction: TypedTransaction }) =>
        onTxEnd.call(tracer, result.transaction, index, result, vm),
      ),
    ]);
  }
  if (onEnter) evmListeners.push(['beforeMessage', wrap((m: Message) => onEnter.call(tracer, m))]);
  if (onExit) evmListeners.push(['afterMessage', wrap((r: EVMResult) => onExit.call(tracer, r))]);
  if (onStep) evmListeners.push(['step', wrap((s: InterpreterStep) => onStep.call(tracer, s))]);
  const vmEvents = vm.events as unknown as Emitter;
  const evmEvents = vm.evm.events as unknown as Emitter | undefined;
  for (const [name, l] of vmListeners) on(vmEvents, name, l);
  for (const [name, l] of evmListeners) if (evmEvents) on(evmEvents, name, l);
  return () => {
    for (const [name, l] of vmListeners) off(vmEvents, name, l);
    for (const [name, l] of evmListeners) if (evmEvents) off(evmEvents, name, l);
    if (failure) throw failure;
  };
}

interface Emitter {
  on(name: string, l: Listener): void;
  off(name: string, l: Listener): void;
}

function on(target: Emitter, name: string, l: Listener): void {
  target.on(name, l);
}

function off(target: Emitter, name: string, l: Listener): void {
  target.off(name, l);
}
