/**
 * Flat (Parity-style) call traces from a transaction's frames, with Besu's rules: a trace per call,
 * creation and self-destruct that ran code (calls to precompiles and calls that never started are
 * left out), `traceAddress` from the open traces' subtrace counts, gas and gas used from the frames'
 * gas figures, `error` from REVERT and halts. Besu derives a few members from the frames in ways no
 * other client does (a reverted call keeps its caller's apparent value, every creation of a
 * transaction that used CREATE2 is a `create2`, a creation inside a creating transaction comes `from`
 * the address the transaction creates); the generator follows them, since Besu's answers are the
 * reference.
 *
 * The objects are built in Besu's member order and with its hex encodings, ready for JSON.
 */
import { Address, bigIntToUnpaddedBytes, bytesToHex, generateAddress } from '@ethereumjs/util';
import { HALT_DESCRIPTIONS, OP, type TracedTransaction, type TraceFrame } from './frames.js';

export interface ActionJson {
  creationMethod?: string;
  callType?: string;
  from?: string;
  gas?: string;
  input?: string;
  to?: string;
  init?: string;
  author?: string;
  rewardType?: string;
  value?: string;
  address?: string;
  balance?: string;
  refundAddress?: string;
}

export interface ResultJson {
  address?: string;
  code?: string;
  gasUsed?: string;
  output?: string;
}

/** One flat trace as Besu writes it (members in its order; absent ones omitted). */
export interface FlatTraceJson {
  action: ActionJson;
  blockHash?: string;
  blockNumber?: number;
  result?: ResultJson | null;
  error?: string;
  revertReason?: string;
  subtraces: number;
  traceAddress: number[];
  transactionHash?: string | null;
  transactionPosition?: number | null;
  type: string;
}

export const quantityHex = (v: bigint): string => `0x${v.toString(16)}`;
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const CALL_STIPEND = 2300n;

class Builder {
  action: ActionJson = {};
  result: ResultJson | null = { gasUsed: '0x0', output: '0x' };
  subtraces = 0;
  traceAddress: number[] = [];
  type = 'call';
  error: string | undefined;
  revertReason: string | undefined;

  setCode(code: string): void {
    if (!this.result) return;
    this.result.code = code;
    this.result.output = undefined;
  }
}

class Context {
  gasUsed = 0n;
  createOp = false;
  constructor(readonly builder: Builder) {}
  setGasUsed(gas: bigint): void {
    this.gasUsed = gas;
    if (this.builder.result) this.builder.result.gasUsed = hexSigned(gas);
  }
}

/** Besu prints gas as Java's Long.toHexString: negative figures in two's complement. */
function hexSigned(v: bigint): string {
  return `0x${(v < 0n ? v + (1n << 64n) : v).toString(16)}`;
}

function toAddressHex(word: bigint): string {
  return `0x${(word & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;
}

export interface FlatOptions {
  /** Add `creationMethod` to creations (block traces and replays; not the call family). */
  creationMethod: boolean;
  /** Block members for trace_block, trace_transaction, trace_get and trace_filter. */
  block?: { hash: string; number: number };
}

/** The flat traces of one transaction, in Besu's order. */
export function flatTraces(traced: TracedTransaction, opts: FlatOptions): FlatTraceJson[] {
  const { tx, frames, outcome } = traced;
  const first = new Builder();
  const sender = tx.getSenderAddress();
  first.action.from = sender.toString();
  first.action.value = quantityHex(tx.value);
  const frame0 = frames[0];
  if (frame0) first.action.gas = quantityHex(frame0.gasRemaining + (frame0.precompiledGasCost ?? 0n));

  const isCreation = tx.to === undefined;
  const contractAddress = isCreation
    ? new Address(generateAddress(sender.bytes, bigIntToUnpaddedBytes(tx.nonce))).toString()
    : undefined;
  if (isCreation) first.setCode(bytesToHex(outcome.output));
  if (outcome.revertReason) first.revertReason = bytesToHex(outcome.revertReason);
  if (isCreation) first.action.init = bytesToHex(tx.data);

  if (!isCreation) {
    first.action.to = (tx.to as Address).toString();
    first.action.callType = 'call';
    first.action.input = bytesToHex(tx.data);
    if (frame0 && hasRevertInSubCall(frames, frame0)) first.error = 'Reverted';
  } else {
    first.type = 'create';
    if (first.result) first.result.address = contractAddress;
  }
  if (frame0?.precompiledGasCost !== undefined && first.result)
    first.result.gasUsed = hexSigned(frame0.precompiledGasCost);

  const out: Builder[] = [first];
  const contexts: Context[] = [];
  let current: Context | undefined = new Context(first);
  contexts.push(current);
  let cumulative = 0n;

  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i] as TraceFrame;
    const next = frames[i + 1];
    cumulative += frame.gasCost + (frame.precompiledGasCost ?? 0n);
    const op = frame.op;
    if (op === OP.CALL || op === OP.CALLCODE || op === OP.DELEGATECALL || op === OP.STATICCALL) {
      current = handleCall(frames, frame, next, out, cumulative, contexts, frame.opName.toLowerCase());
    } else if (op === OP.CALLDATALOAD) {
      if (current) current.builder.action.value = quantityHex(frame.value);
    } else if (op === OP.RETURN || op === OP.STOP) {
      if (current) current = handleReturn(traced, frame, contexts, current);
    } else if (op === OP.SELFDESTRUCT) {
      if (frame.halt !== undefined) {
        current = handleCall(frames, frame, next, out, cumulative, contexts, 'selfdestruct');
      } else if (current) {
        current = handleSelfDestruct(frame, contexts, current, out);
      }
    } else if ((op === OP.CREATE || op === OP.CREATE2) && (frame.halt === undefined || frame.depth === 0)) {
      current = handleCreate(frame, next, out, cumulative, contexts, contractAddress);
    } else if (op === OP.REVERT) {
      if (current) {
        current.builder.error = 'Reverted';
        contexts.pop();
        current = contexts[contexts.length - 1];
        if (current) current.builder.subtraces++;
      }
    }
    if (frame.halt !== undefined) current = handleHalt(out, contexts, current, frame);
    if (current === undefined) break;
  }

  let usesCreate2 = false;
  if (opts.creationMethod) usesCreate2 = frames.some((f) => f.op === OP.CREATE2);
  return out.map((b) => build(b, traced, opts, usesCreate2));
}

function build(
  b: Builder,
  traced: TracedTransaction,
  opts: FlatOptions,
  usesCreate2: boolean,
): FlatTraceJson {
  const a = b.action;
  const action: ActionJson = {};
  if (opts.creationMethod && b.type === 'create') action.creationMethod = usesCreate2 ? 'create2' : 'create';
  if (a.callType !== undefined) action.callType = a.callType;
  if (a.from !== undefined) action.from = a.from;
  if (a.gas !== undefined) action.gas = a.gas;
  if (a.input !== undefined) action.input = a.input;
  if (a.to !== undefined) action.to = a.to;
  if (a.init !== undefined) action.init = a.init;
  if (a.value !== undefined) action.value = a.value;
  if (a.address !== undefined) action.address = a.address;
  if (a.balance !== undefined) action.balance = a.balance;
  if (a.refundAddress !== undefined) action.refundAddress = a.refundAddress;
  const trace: FlatTraceJson = { action } as FlatTraceJson;
  if (opts.block) {
    trace.blockHash = opts.block.hash;
    trace.blockNumber = opts.block.number;
  }
  if (b.error === undefined) {
    const r = b.result;
    trace.result = r === null ? null : resultJson(r);
  } else {
    trace.error = b.error;
  }
  if (b.revertReason !== undefined) trace.revertReason = b.revertReason;
  trace.subtraces = b.subtraces;
  trace.traceAddress = b.traceAddress;
  if (opts.block) {
    trace.transactionHash = bytesToHex(traced.tx.hash());
    trace.transactionPosition = traced.index;
  }
  trace.type = b.type;
  return trace;
}

function resultJson(r: ResultJson): ResultJson {
  const out: ResultJson = {};
  if (r.address !== undefined) out.address = r.address;
  if (r.code !== undefined) out.code = r.code;
  if (r.gasUsed !== undefined) out.gasUsed = r.gasUsed;
  if (r.output !== undefined) out.output = r.output;
  return out;
}

function handleCall(
  frames: TraceFrame[],
  frame: TraceFrame,
  next: TraceFrame | undefined,
  out: Builder[],
  cumulative: bigint,
  contexts: Context[],
  callType: string,
): Context | undefined {
  const stack = frame.stack ?? [];
  const last = contexts[contexts.length - 1] as Context;
  const from = callingAddress(last);
  // A call that started no frame (a precompile, too little value, too deep) gets no trace.
  if (frame.depth >= (next?.depth ?? 0)) return last;
  const b = new Builder();
  b.traceAddress = contexts.map((c) => c.builder.subtraces);
  b.action.from = from;
  if (next) b.action.input = bytesToHex(next.inputData);
  b.action.gas = hexSigned(next?.gasRemaining ?? 0n);
  b.action.callType = callType;
  b.action.value = quantityHex(frame.value);
  if (stack.length > 1) b.action.to = toAddressHex(stack[stack.length - 2] as bigint);
  if (next && hasRevertInSubCall(frames, next)) b.error = 'Reverted';
  const ctx = new Context(b);
  ctx.setGasUsed(ctx.gasUsed - cumulative);
  contexts.push(ctx);
  out.push(b);
  return ctx;
}

function handleReturn(
  traced: TracedTransaction,
  frame: TraceFrame,
  contexts: Context[],
  current: Context,
): Context | undefined {
  const b = current.builder;
  const result = b.result as ResultJson;
  b.action.value = quantityHex(frame.value);
  current.setGasUsed(computeGasUsed(contexts, current, traced, frame));
  if (frame.op === OP.STOP && result.gasUsed === '0x0') {
    const top = contexts[0];
    const innermost = contexts[contexts.length - 1];
    for (const c of contexts) if (c !== top && c !== innermost) c.setGasUsed(c.gasUsed - CALL_STIPEND);
  }
  const output = bytesToHex(frame.outputData);
  if (result.code === undefined) result.output = output;
  if (b.action.callType === undefined) {
    b.action.init = bytesToHex(frame.code);
    b.setCode(output);
    if (current.createOp) current.setGasUsed(current.gasUsed + BigInt(frame.outputData.length) * 200n);
  }
  contexts.pop();
  const parent = contexts[contexts.length - 1];
  if (parent) parent.builder.subtraces++;
  return parent;
}

function handleSelfDestruct(
  frame: TraceFrame,
  contexts: Context[],
  current: Context,
  out: Builder[],
): Context | undefined {
  const action = current.builder.action;
  current.setGasUsed(BigInt(action.gas ?? '0x0') - frame.gasRemaining + frame.gasCost);
  const stack = frame.stack ?? [];
  const refundAddress = toAddressHex((stack[stack.length - 1] as bigint | undefined) ?? 0n);
  const b = new Builder();
  b.type = 'suicide';
  b.traceAddress = contexts.map((c) => c.builder.subtraces);
  b.result = null;
  const calling = (contexts[contexts.length - 1] as Context).builder.action;
  let address: string;
  if (calling.callType !== undefined)
    address = (calling.callType === 'call' ? calling.to : calling.from) ?? '';
  else address = frame.recipient.toString();
  b.action.address = address;
  b.action.refundAddress = refundAddress;
  b.action.balance = quantityHex(frame.refund ?? 0n);
  out.push(b);
  const closed = contexts.pop() as Context;
  closed.builder.subtraces++;
  const parent = contexts[contexts.length - 1];
  if (parent) parent.builder.subtraces++;
  return parent;
}

function handleCreate(
  frame: TraceFrame,
  next: TraceFrame | undefined,
  out: Builder[],
  cumulative: bigint,
  contexts: Context[],
  contractAddress: string | undefined,
): Context {
  const last = contexts[contexts.length - 1] as Context;
  const b = new Builder();
  b.type = 'create';
  b.traceAddress = contexts.map((c) => c.builder.subtraces);
  b.action.from = contractAddress ?? callingAddress(last);
  b.action.gas = hexSigned(createGas(frame, next));
  b.action.value = quantityHex(next?.value ?? 0n);
  b.action.init = bytesToHex(frame.code);
  (b.result as ResultJson).address = next ? next.recipient.toString() : ZERO_ADDRESS;
  const ctx = new Context(b);
  ctx.createOp = true;
  ctx.setGasUsed(ctx.gasUsed - cumulative);
  contexts.push(ctx);
  out.push(b);
  return ctx;
}

function handleHalt(
  out: Builder[],
  contexts: Context[],
  current: Context | undefined,
  frame: TraceFrame,
): Context | undefined {
  const b = current ? current.builder : (out[out.length - 1] as Builder);
  b.error = HALT_DESCRIPTIONS[frame.halt as keyof typeof HALT_DESCRIPTIONS];
  if (!current) return current;
  b.action.value = quantityHex(frame.value);
  contexts.pop();
  const parent = contexts[contexts.length - 1];
  if (parent) parent.builder.subtraces++;
  return parent;
}

/** Whether the first RETURN or REVERT at `callFrame`'s depth (scanning the whole transaction) is a REVERT. */
function hasRevertInSubCall(frames: TraceFrame[], callFrame: TraceFrame): boolean {
  const depth = callFrame.depth;
  for (let i = 1; i < frames.length; i++) {
    const next = frames[i] as TraceFrame;
    if (next.depth !== depth) continue;
    if (next.op === OP.REVERT) return true;
    if (next.op === OP.RETURN) return false;
  }
  return false;
}

function callingAddress(ctx: Context): string {
  const b = ctx.builder;
  const a = b.action;
  if (a.callType === undefined)
    return b.type === 'create' ? (b.result?.address ?? ZERO_ADDRESS) : ZERO_ADDRESS;
  switch (a.callType) {
    case 'call':
    case 'staticcall':
      return a.to ?? ZERO_ADDRESS;
    case 'delegatecall':
    case 'callcode':
      return a.from ?? ZERO_ADDRESS;
    default:
      return ZERO_ADDRESS;
  }
}

function computeGasUsed(
  contexts: Context[],
  current: Context,
  traced: TracedTransaction,
  frame: TraceFrame,
): bigint {
  if (contexts.length === 1) {
    const before = (traced.frames[0] as TraceFrame).gasRemaining;
    const after = traced.outcome.gasRemaining;
    const refund = after > frame.gasRemaining ? after - frame.gasRemaining : frame.gasRefund;
    return before - after + refund;
  }
  return BigInt(current.builder.action.gas ?? '0x0') - frame.gasRemaining;
}

function createGas(frame: TraceFrame, next: TraceFrame | undefined): bigint {
  if (frame.gasCost !== 0n && frame.gasRemaining >= frame.gasCost) {
    const remaining = frame.gasRemaining - frame.gasCost;
    return remaining - remaining / 64n;
  }
  return next?.gasRemaining ?? 0n;
}
