/**
 * The trace options object of debug_trace* (Besu's TransactionTraceParams): `disableStorage`,
 * `disableMemory`, `disableStack` (struct logs; by default stack and storage on, memory off),
 * `tracer` (`callTracer`, `prestateTracer`, `4byteTracer`; case-sensitive), `tracerConfig`
 * (`onlyTopCall`, `withLog`, `diffMode`) and `timeout` (a Go duration such as `"10s"`). go-ethereum's
 * `enableMemory` is read when `disableMemory` is absent, so clients written for either name get memory.
 * Unknown members are ignored, as Besu ignores them; a member of the wrong type, an unknown tracer or a
 * malformed duration is `Invalid transaction trace params`.
 */
import {
  DEFAULT_TRACE_OPTIONS,
  type TraceOptions,
  type TracerName,
} from '../../execution/tracers/options.js';
import { INVALID_TRANSACTION_TRACE_PARAMS, RpcError } from '../errors.js';

const TRACERS: Record<string, TracerName> = {
  callTracer: 'callTracer',
  prestateTracer: 'prestateTracer',
  '4byteTracer': '4byteTracer',
};

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const DURATION = /^(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h)/;

/** A Go duration (`"1.5s"`, `"300ms"`, `"1m30s"`) in milliseconds; undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let total = 0;
  if (rest === '') return undefined;
  while (rest !== '') {
    const m = DURATION.exec(rest);
    if (!m) return undefined;
    const part = m[0];
    const unit = /(ns|us|µs|ms|s|m|h)$/.exec(part)?.[0] as string;
    total += Number.parseFloat(part.slice(0, part.length - unit.length)) * (UNIT_MS[unit] as number);
    rest = rest.slice(part.length);
  }
  return total;
}

function fail(): never {
  throw new RpcError(INVALID_TRANSACTION_TRACE_PARAMS);
}

function flag(obj: Record<string, unknown>, name: string): boolean | undefined {
  const v = obj[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') fail();
  return v;
}

/** Decodes the options object (absent or null: Besu's defaults). */
export function decodeTraceOptions(value: unknown): TraceOptions {
  if (value === undefined || value === null) return DEFAULT_TRACE_OPTIONS;
  if (typeof value !== 'object' || Array.isArray(value)) fail();
  const obj = value as Record<string, unknown>;
  let tracer: TracerName = 'structLogs';
  if (obj.tracer !== undefined && obj.tracer !== null) {
    if (typeof obj.tracer !== 'string') fail();
    const named = obj.tracer === '' ? 'structLogs' : TRACERS[obj.tracer];
    if (named === undefined) fail();
    tracer = named;
  }
  const disableStorage = flag(obj, 'disableStorage');
  const disableMemory = flag(obj, 'disableMemory');
  const disableStack = flag(obj, 'disableStack');
  const enableMemory = flag(obj, 'enableMemory');
  let config: Record<string, unknown> = {};
  if (obj.tracerConfig !== undefined && obj.tracerConfig !== null) {
    if (typeof obj.tracerConfig !== 'object' || Array.isArray(obj.tracerConfig)) fail();
    config = obj.tracerConfig as Record<string, unknown>;
  }
  let timeoutMs: number | undefined;
  if (obj.timeout !== undefined && obj.timeout !== null) {
    if (typeof obj.timeout !== 'string') fail();
    timeoutMs = parseGoDuration(obj.timeout);
    if (timeoutMs === undefined) fail();
  }
  const options: TraceOptions = {
    tracer,
    structLog: {
      stack: disableStack === undefined ? true : !disableStack,
      memory: disableMemory !== undefined ? !disableMemory : (enableMemory ?? false),
      storage: disableStorage === undefined ? true : !disableStorage,
    },
    onlyTopCall: flag(config, 'onlyTopCall') ?? false,
    withLog: flag(config, 'withLog') ?? false,
    diffMode: flag(config, 'diffMode') ?? false,
  };
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  return options;
}
