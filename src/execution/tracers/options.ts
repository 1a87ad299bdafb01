/** What a debug trace is asked for: which tracer, its configuration and its deadline. */
import type { StructLogOptions } from './structLog.js';

/** The tracers Besu serves by name (`tracer`); struct logs when none is named. */
export type TracerName = 'structLogs' | 'callTracer' | 'prestateTracer' | '4byteTracer';

export interface TraceOptions {
  tracer: TracerName;
  /** Struct logs: which parts each entry carries. */
  structLog: StructLogOptions;
  /** callTracer: the top frame only. */
  onlyTopCall: boolean;
  /** callTracer: the logs of each frame. */
  withLog: boolean;
  /** prestateTracer: pre- and post-state of what changed instead of the pre-state of what was touched. */
  diffMode: boolean;
  /** Milliseconds the tracing may take; undefined = no limit. */
  timeoutMs?: number;
}

/** Besu's defaults: struct logs with stack and storage, without memory. */
export const DEFAULT_TRACE_OPTIONS: TraceOptions = Object.freeze({
  tracer: 'structLogs',
  structLog: Object.freeze({ stack: true, memory: false, storage: true }),
  onlyTopCall: false,
  withLog: false,
  diffMode: false,
}) as TraceOptions;

/** How a transaction ended, as the trace results report it. */
export interface TxOutcome {
  /** Gas the transaction used (limit minus what was left after refunds). */
  gasUsed: bigint;
  /** Reverted or halted. */
  failed: boolean;
  reverted: boolean;
  /** Return or revert data (empty after a halt). */
  output: Uint8Array;
  /** The EVM's error text when it failed. */
  error?: string;
}
