/**
 * Struct logs as Besu writes them (debug_traceTransaction and friends), one opcode at a time, straight
 * to a sink as JSON text: nothing of a transaction's trace is kept beyond the opcode in flight.
 *
 * Each entry is `pc, op, gas, gasCost, depth` then, when enabled and present, `stack` (before the
 * opcode, bottom first, minimal `0x` hex), `memory` (after the opcode, 32-byte words in minimal `0x`
 * hex), `storage` (the slots this frame has written so far, its own and its finished sub-calls', as
 * `0x` + 64 hex digits, sorted; SLOAD's entry adds the slot it reads), `reason` (REVERT's data, minimal hex) and `error` (the halt's name).
 * `gas` is what the frame had before the opcode; `gasCost` the opcode's own cost, plus the gas handed
 * to the callee for the CALL family. Memory after an opcode is what the next opcode of the frame sees;
 * for calls, creations and the frame's last opcode it is the memory before it, grown to the size the
 * opcode's operands reach.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { BlockTracer } from '../tracer.js';
import type { Deadline, TextSink } from './sink.js';

export interface StructLogOptions {
  stack: boolean;
  memory: boolean;
  storage: boolean;
}

/** Besu's exceptional halt names, by the EVM library's error text. */
export function haltName(error: string): string {
  if (error.startsWith('invalid JUMP')) return 'INVALID_JUMP_DESTINATION';
  switch (error) {
    case 'out of gas':
    case 'code store out of gas':
      return 'INSUFFICIENT_GAS';
    case 'stack underflow':
      return 'INSUFFICIENT_STACK_ITEMS';
    case 'stack overflow':
      return 'TOO_MANY_STACK_ITEMS';
    case 'invalid opcode':
      return 'INVALID_OPERATION';
    case 'static state change':
      return 'ILLEGAL_STATE_CHANGE';
    case 'return data out of bounds':
    case 'value out of range':
      return 'INVALID_RETURN_DATA_BUFFER_ACCESS';
    case 'code size to deposit exceeds maximum code size':
      return 'CODE_TOO_LARGE';
    case 'invalid bytecode deployed':
    case 'invalid EOF format':
      return 'INVALID_CODE';
    case 'create collision':
      return 'INSUFFICIENT_GAS';
    default:
      return 'PRECOMPILE_ERROR';
  }
}

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push(i.toString(16).padStart(2, '0'));

/** Minimal `0x` hex of bytes (`0x0` for none or all zeros), as Besu's compact hex. */
export function compactHex(data: Uint8Array, start = 0, end = data.length): string {
  let i = start;
  while (i < end && data[i] === 0) i++;
  if (i === end) return '0x0';
  const first = data[i] as number;
  let out = first < 16 ? `0x${first.toString(16)}` : `0x${HEX[first]}`;
  for (i++; i < end; i++) out += HEX[data[i] as number];
  return out;
}

const WORD_HEX_ZERO = '0'.repeat(64);

function word64(v: bigint): string {
  const s = v.toString(16);
  return `0x${s.length >= 64 ? s : WORD_HEX_ZERO.slice(s.length) + s}`;
}

/** The `storage` member for these slots (none: no member). */
function storageText(slots: Map<bigint, bigint> | undefined): string {
  if (!slots || slots.size === 0) return '';
  const keys = [...slots.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let text = ',"storage":{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as bigint;
    text += `${i === 0 ? '' : ','}"${word64(k)}":"${word64(slots.get(k) as bigint)}"`;
  }
  return `${text}}`;
}

function bigIntToBytes32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

const SLOAD = 0x54;
const CALL = 0xf1;
const CALLCODE = 0xf2;
const DELEGATECALL = 0xf4;
const STATICCALL = 0xfa;
const CREATE = 0xf0;
const CREATE2 = 0xf5;
const RETURN = 0xf3;
const REVERT = 0xfd;
const SSTORE = 0x55;

function isCallOrCreate(op: number): boolean {
  return (
    op === CALL ||
    op === CALLCODE ||
    op === DELEGATECALL ||
    op === STATICCALL ||
    op === CREATE ||
    op === CREATE2
  );
}

/** Words of memory an opcode's operands reach (calls, creations, RETURN, REVERT); 0 for others. */
function reachedWords(op: number, stack: readonly bigint[]): number {
  const n = stack.length;
  const at = (k: number): bigint => stack[n - k] ?? 0n;
  const span = (off: bigint, size: bigint): number =>
    size === 0n || off + size > 1n << 32n ? 0 : Number((off + size + 31n) / 32n);
  switch (op) {
    case CALL:
    case CALLCODE:
      return Math.max(span(at(4), at(5)), span(at(6), at(7)));
    case DELEGATECALL:
    case STATICCALL:
      return Math.max(span(at(3), at(4)), span(at(5), at(6)));
    case CREATE:
    case CREATE2:
      return span(at(2), at(3));
    case RETURN:
    case REVERT:
      return span(at(1), at(2));
    default:
      return 0;
  }
}

/** Opcodes after which a frame is over. */
const HALTS = new Set([0x00, RETURN, REVERT, 0xfe, 0xff]);

/** What the EVM library's run state exposes at a frame's end. */
interface RunStateView {
  gasLeft: bigint;
  stack?: { getStack?(): bigint[] };
  memory?: { _store: Uint8Array };
  memoryWordCount?: bigint;
  env?: { address?: { toString(): string } };
}

interface Pending {
  /** The entry up to and including `depth` (and `stack`). */
  head: string;
  op: number;
  stack: readonly bigint[];
  gasCost: bigint;
  gasHead: string;
  memory: Uint8Array | undefined;
  storage: string;
  reason: string | undefined;
}

interface Frame {
  /** Slots written in this frame and its finished sub-calls, by storage address. */
  writes: Map<string, Map<bigint, bigint>>;
  pending: Pending | undefined;
  /** The last opcode that ran in this frame and where the next one would start. */
  lastOp: number;
  nextPc: number;
  /** The serialised `storage` member by address, dropped when a slot changes. */
  storageText: Map<string, string>;
}

/**
 * One transaction's struct logs. Attach it for that transaction only (`onStep` is costly); the text it
 * writes is the members of the `structLogs` array, comma separated.
 */
export class StructLogTracer implements BlockTracer {
  private frames: Frame[] = [];
  private first = true;
  /** A sink's back-pressure, awaited at the next hook. */
  private wait: Promise<void> | undefined;

  constructor(
    private readonly opts: StructLogOptions,
    private readonly out: TextSink,
    private readonly deadline: Deadline,
  ) {}

  onEnter(_message: Message): Promise<void> | undefined {
    const parent = this.frames[this.frames.length - 1];
    if (parent?.pending && isCallOrCreate(parent.pending.op)) {
      const p = parent.pending;
      parent.pending = undefined;
      if (p.op !== CREATE && p.op !== CREATE2) p.gasCost += _message.gasLimit;
      this.emit(p, this.grown(p), undefined);
    }
    this.frames.push({
      writes: new Map(),
      pending: undefined,
      storageText: new Map(),
      lastOp: -1,
      nextPc: 0,
    });
    return this.drain();
  }

  onExit(result: EVMResult): Promise<void> | undefined {
    const frame = this.frames.pop();
    if (!frame) return undefined;
    const err = result.execResult.exceptionError;
    const failed = err !== undefined && err.error !== 'revert';
    if (frame.pending) {
      const p = frame.pending;
      frame.pending = undefined;
      this.emit(p, this.grown(p), failed ? haltName((err as { error: string }).error) : undefined);
    }
    // Code that runs off its end stops there: Besu shows that STOP.
    if (err === undefined && frame.lastOp >= 0 && !HALTS.has(frame.lastOp)) this.implicitStop(frame, result);
    const parent = this.frames[this.frames.length - 1];
    if (parent && err === undefined && this.opts.storage) {
      for (const [address, slots] of frame.writes) {
        let into = parent.writes.get(address);
        if (!into) {
          into = new Map();
          parent.writes.set(address, into);
        }
        for (const [k, v] of slots) into.set(k, v);
        parent.storageText.delete(address);
      }
    }
    return this.drain();
  }

  onStep(step: InterpreterStep): Promise<void> | undefined {
    this.deadline.check();
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return undefined;
    if (frame.pending) {
      const p = frame.pending;
      frame.pending = undefined;
      const after = !this.opts.memory ? undefined : isCallOrCreate(p.op) ? this.grown(p) : step.memory;
      this.emit(p, after, undefined);
    }
    const opts = this.opts;
    const op = step.opcode.code;
    const stack = step.stack;
    frame.lastOp = op;
    frame.nextPc = step.pc + 1 + (op >= 0x60 && op <= 0x7f ? op - 0x5f : 0);
    const head = `{"pc":${step.pc},"op":"${step.opcode.name}","gas":${step.gasLeft},"gasCost":`;
    let tail = `,"depth":${step.depth + 1}`;
    if (opts.stack) {
      tail += ',"stack":[';
      for (let i = 0; i < stack.length; i++)
        tail += `${i === 0 ? '"0x' : ',"0x'}${(stack[i] as bigint).toString(16)}"`;
      tail += ']';
    }
    let storage = '';
    if (opts.storage) {
      const address = step.address.toString();
      if (op === SSTORE && stack.length >= 2) {
        let slots = frame.writes.get(address);
        if (!slots) {
          slots = new Map();
          frame.writes.set(address, slots);
        }
        slots.set(stack[stack.length - 1] as bigint, stack[stack.length - 2] as bigint);
        frame.storageText.delete(address);
      }
      storage = this.storageOf(frame, address);
      if (op === SLOAD && stack.length >= 1)
        return this.withLoadedSlot(step, frame, address, stack[stack.length - 1] as bigint, tail, head);
    }
    frame.pending = {
      head: tail,
      op,
      stack,
      gasCost: step.opcode.dynamicFee ?? BigInt(step.opcode.fee),
      gasHead: head,
      memory: opts.memory ? step.memory : undefined,
      storage,
      reason: op === REVERT ? compactHex(step.error ?? new Uint8Array()) : undefined,
    };
    return this.drain();
  }

  /**
   * SLOAD's entry also shows the slot it reads (as the cross-client suite expects; Besu shows written
   * slots only), merged with the frame's written ones.
   */
  private async withLoadedSlot(
    step: InterpreterStep,
    frame: Frame,
    address: string,
    key: bigint,
    tail: string,
    head: string,
  ): Promise<void> {
    const slots = new Map(frame.writes.get(address) ?? []);
    if (!slots.has(key)) {
      const raw = await step.stateManager.getStorage(step.address, bigIntToBytes32(key));
      let v = 0n;
      for (const b of raw) v = (v << 8n) | BigInt(b);
      slots.set(key, v);
    }
    frame.pending = {
      head: tail,
      op: SLOAD,
      stack: step.stack,
      gasCost: step.opcode.dynamicFee ?? BigInt(step.opcode.fee),
      gasHead: head,
      memory: this.opts.memory ? step.memory : undefined,
      storage: storageText(slots),
      reason: undefined,
    };
    const w = this.drain();
    if (w) await w;
  }

  /** The STOP a frame's code ends with when it runs off its last byte. */
  private implicitStop(frame: Frame, result: EVMResult): void {
    const run = (result.execResult as { runState?: RunStateView }).runState;
    if (!run) return;
    const parent = this.frames.length;
    let tail = `,"depth":${parent + 1}`;
    if (this.opts.stack) {
      const stack = run.stack?.getStack?.() ?? [];
      tail += ',"stack":[';
      for (let i = 0; i < stack.length; i++)
        tail += `${i === 0 ? '"0x' : ',"0x'}${(stack[i] as bigint).toString(16)}"`;
      tail += ']';
    }
    let memory: Uint8Array | undefined;
    if (this.opts.memory && run.memory && run.memoryWordCount !== undefined) {
      const size = Number(run.memoryWordCount) * 32;
      memory = new Uint8Array(size);
      memory.set(run.memory._store.subarray(0, Math.min(size, run.memory._store.length)));
    }
    const address = run.env?.address?.toString();
    const storage = this.opts.storage && address !== undefined ? this.storageOf(frame, address) : '';
    this.emit(
      {
        head: tail,
        op: 0,
        stack: [],
        gasCost: 0n,
        gasHead: `{"pc":${frame.nextPc},"op":"STOP","gas":${run.gasLeft},"gasCost":`,
        memory,
        storage,
        reason: undefined,
      },
      memory,
      undefined,
    );
  }

  /** Memory before the pending opcode, grown to what its operands reach. */
  private grown(p: Pending): Uint8Array | undefined {
    const mem = p.memory;
    if (!mem) return undefined;
    const words = reachedWords(p.op, p.stack);
    if (words * 32 <= mem.length) return mem;
    const out = new Uint8Array(words * 32);
    out.set(mem);
    return out;
  }

  private storageOf(frame: Frame, address: string): string {
    const cached = frame.storageText.get(address);
    if (cached !== undefined) return cached;
    const text = storageText(frame.writes.get(address));
    frame.storageText.set(address, text);
    return text;
  }

  private emit(p: Pending, memory: Uint8Array | undefined, error: string | undefined): void {
    let text = `${this.first ? '' : ','}${p.gasHead}${p.gasCost}${p.head}`;
    this.first = false;
    if (memory && memory.length > 0) {
      text += ',"memory":[';
      for (let i = 0; i < memory.length; i += 32)
        text += `${i === 0 ? '"' : ',"'}${compactHex(memory, i, i + 32)}"`;
      text += ']';
    }
    text += p.storage;
    if (p.reason !== undefined) text += `,"reason":"${p.reason}"`;
    if (error !== undefined) text += `,"error":"${error}"`;
    text += '}';
    const w = this.out(text);
    if (w !== undefined) this.wait = this.wait ? this.wait.then(() => w) : w;
  }

  private drain(): Promise<void> | undefined {
    const w = this.wait;
    this.wait = undefined;
    return w;
  }
}
