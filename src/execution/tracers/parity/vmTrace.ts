/**
 * The `vmTrace` of a transaction: its code and, per executed opcode, its cost, pc, the gas left after
 * it (`used`), the words it pushed, the memory and storage it wrote, and for CALL/CREATE the nested
 * trace of the code it ran (`sub`), derived from the frames by Besu's rules (a CALL's cost includes
 * the gas handed to the child; halts other than out-of-gas, bad jumps and illegal state changes are
 * left out; a call's report is the one of the opcode after it).
 */
import { bytesToHex } from '@ethereumjs/util';
import { OP, type TracedTransaction, type TraceFrame } from './frames.js';

export interface VmOpJson {
  cost: number;
  ex: {
    mem: { data: string; off: number } | null;
    push: string[];
    store: { key: string; val: string } | null;
    used: number;
  } | null;
  pc: number;
  sub: VmTraceJson | null;
}

export interface VmTraceJson {
  code: string;
  ops: VmOpJson[];
}

const q = (v: bigint): string => `0x${v.toString(16)}`;
const CALLS = new Set<number>([OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL, OP.CREATE, OP.CREATE2]);
const MEMORY_OPS = new Set<number>([0x37, 0x39, 0x3c, 0x51, 0x52, 0x53, 0x3e]);

export function vmTrace(traced: TracedTransaction): VmTraceJson {
  const frames = traced.frames;
  const root: VmTraceJson = { code: '0x', ops: [] };
  if (frames.length === 0) return root;
  if (traced.tx.to === undefined) root.code = bytesToHex(traced.tx.data);
  const parents: VmTraceJson[] = [root];
  let current: VmTraceJson | undefined;
  let lastDepth = 0;
  let started = false;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i] as TraceFrame;
    const next = frames[i + 1];
    if (started && frame.depth < lastDepth) current = parents.pop();
    if (mustIgnore(frame, frames.length)) continue;
    started = true;
    current = parents[parents.length - 1];
    if (current && current.code === '0x') current.code = bytesToHex(frame.code);
    const op: VmOpJson = { cost: Number(frame.gasCost), ex: null, pc: frame.pc, sub: null };
    const ex: NonNullable<VmOpJson['ex']> = {
      mem: null,
      push: [],
      store: null,
      used: Number(frame.gasRemaining - frame.gasCost),
    };
    if (MEMORY_OPS.has(frame.op) && frame.updatedMemory)
      ex.mem = { data: bytesToHex(frame.updatedMemory.data), off: frame.updatedMemory.offset };
    if (frame.pushed)
      for (let k = frame.pushed.length - 1; k >= 0; k--) ex.push.push(q(frame.pushed[k] as bigint));
    if (frame.updatedStorage)
      ex.store = { key: q(frame.updatedStorage.key), val: q(frame.updatedStorage.value) };
    if (CALLS.has(frame.op)) {
      const isCreate = frame.op === OP.CREATE || frame.op === OP.CREATE2;
      if (frame.op === OP.CALL || frame.op === OP.DELEGATECALL) {
        const ret = findReturn(frames, frame, i);
        if (ret) ex.mem = { data: bytesToHex(ret.outputData), off: 0 };
      }
      const after = findAfterCall(frames, frame, i);
      if (after) {
        ex.used = Number(after.gasRemaining);
        const stack = after.stack;
        if (stack && stack.length > 0) ex.push = [q(stack[stack.length - 1] as bigint)];
        if (!isCreate && after.updatedMemory)
          ex.mem = { data: bytesToHex(after.updatedMemory.data), off: after.updatedMemory.offset };
      }
      if (frame.code.length > 0) {
        if ((next?.depth ?? 0) > frame.depth) {
          op.cost = Number(frame.gasRemainingPostExecution) + op.cost;
          const sub: VmTraceJson = { code: '0x', ops: [] };
          parents.push(sub);
          op.sub = sub;
        } else if (frame.depth === 0) {
          op.cost = Number(frame.gasRemaining - frame.gasRemainingPostExecution);
          op.sub = { code: bytesToHex(frame.code), ops: [] };
        }
      } else {
        if (frame.precompiledGasCost !== undefined) op.cost += Number(frame.precompiledGasCost);
        else if ((frame.op === OP.STATICCALL || frame.op === OP.CALL) && (next?.depth ?? 0) > frame.depth)
          op.cost = Number(frame.gasRemainingPostExecution) + op.cost;
        op.sub = { code: '0x', ops: [] };
      }
    }
    op.ex = frame.depth > 0 && frame.halt === 'INSUFFICIENT_GAS' ? null : ex;
    current?.ops.push(op);
    lastDepth = frame.depth;
  }
  return root;
}

function mustIgnore(frame: TraceFrame, count: number): boolean {
  if (frame.op === OP.STOP && count === 1) return true;
  if (frame.halt !== undefined)
    return (
      frame.halt !== 'INVALID_JUMP_DESTINATION' &&
      frame.halt !== 'INSUFFICIENT_GAS' &&
      frame.halt !== 'ILLEGAL_STATE_CHANGE'
    );
  return frame.virtual === true;
}

function findAfterCall(frames: TraceFrame[], call: TraceFrame, index: number): TraceFrame | undefined {
  for (let i = index + 1; i < frames.length; i++) {
    const f = frames[i] as TraceFrame;
    if (f.pc === call.pc + 1 && f.depth === call.depth) return f;
  }
  return undefined;
}

function findReturn(frames: TraceFrame[], call: TraceFrame, index: number): TraceFrame | undefined {
  for (let i = index + 1; i < frames.length; i++) {
    const f = frames[i] as TraceFrame;
    if (f.op === OP.RETURN && f.depth === call.depth) return f;
  }
  return undefined;
}
