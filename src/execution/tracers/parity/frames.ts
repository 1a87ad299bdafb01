/**
 * Records a transaction's execution as a list of per-opcode frames, the input the Parity-style
 * generators (flat traces, vmTrace) work from. Each frame holds what that opcode saw and did: the gas
 * before it and its cost, its depth, the executing address and apparent value, the frame's input and,
 * for RETURN/REVERT, its output; for the opcodes the generators inspect, the stack.
 *
 * The EVM library emits no step where Besu's EVM executes one, so three kinds of frames are added
 * here: the STOP a frame runs into when its code ends (or when it has no code at all), the precompile
 * a CALL reached (its cost is recorded on the CALL's frame, or on a frame of its own when the
 * transaction itself calls a precompile), and a halt, which is recorded on the frame's last opcode.
 */

import type { Block } from '@ethereumjs/block';
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { wordBytes } from '../../../util/word.js';
import type { BlockTracer } from '../../tracer.js';
import { type StateDiffJson, StateDiffRecorder } from './stateDiff.js';

export const OP = {
  STOP: 0x00,
  CALLDATALOAD: 0x35,
  SLOAD: 0x54,
  SSTORE: 0x55,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
  INVALID: 0xfe,
  SELFDESTRUCT: 0xff,
} as const;

/** Besu's halt reasons, by their descriptions (the `error` of a trace). */
export type HaltReason =
  | 'INSUFFICIENT_GAS'
  | 'INSUFFICIENT_STACK_ITEMS'
  | 'INVALID_JUMP_DESTINATION'
  | 'INVALID_OPERATION'
  | 'TOO_MANY_STACK_ITEMS'
  | 'ILLEGAL_STATE_CHANGE'
  | 'OUT_OF_BOUNDS'
  | 'CODE_TOO_LARGE'
  | 'INVALID_CODE'
  | 'PRECOMPILE_ERROR';

export const HALT_DESCRIPTIONS: Record<HaltReason, string> = {
  INSUFFICIENT_GAS: 'Out of gas',
  INSUFFICIENT_STACK_ITEMS: 'Stack underflow',
  INVALID_JUMP_DESTINATION: 'Bad jump destination',
  INVALID_OPERATION: 'Bad instruction',
  TOO_MANY_STACK_ITEMS: 'Out of stack',
  ILLEGAL_STATE_CHANGE: 'Illegal state change',
  OUT_OF_BOUNDS: 'Out of bounds',
  CODE_TOO_LARGE: 'Code is too large',
  INVALID_CODE: 'Code is invalid',
  PRECOMPILE_ERROR: 'Precompile error',
};

/** The EVM library's error messages as Besu's halt reasons; undefined for a revert. */
export function haltReasonOf(error: string): HaltReason | undefined {
  if (error.startsWith('invalid JUMP')) return 'INVALID_JUMP_DESTINATION';
  switch (error) {
    case 'revert':
      return undefined;
    case 'out of gas':
    case 'code store out of gas':
      return 'INSUFFICIENT_GAS';
    case 'stack underflow':
      return 'INSUFFICIENT_STACK_ITEMS';
    case 'stack overflow':
      return 'TOO_MANY_STACK_ITEMS';
    case 'invalid JUMP':
    case 'invalid JUMPSUB':
      return 'INVALID_JUMP_DESTINATION';
    case 'static state change':
      return 'ILLEGAL_STATE_CHANGE';
    case 'return data out of bounds':
      return 'OUT_OF_BOUNDS';
    case 'code size to deposit exceeds maximum code size':
      return 'CODE_TOO_LARGE';
    case 'invalid bytecode deployed':
    case 'invalid EOF format':
      return 'INVALID_CODE';
    case 'create collision':
      return 'ILLEGAL_STATE_CHANGE';
    default:
      return 'INVALID_OPERATION';
  }
}

const EMPTY: Uint8Array = new Uint8Array(0);

/** One opcode as the trace generators see it (Besu's trace frame, reduced to what they read). */
export interface TraceFrame {
  pc: number;
  /** Opcode byte; -1 for a frame standing for a precompile or a failed creation with no opcode. */
  op: number;
  /** Mnemonic (`PUSH1`, `CALL` …); empty for the -1 frames. */
  opName: string;
  /** 0 for the transaction's own frame. */
  depth: number;
  /** Gas before the opcode. */
  gasRemaining: bigint;
  /** What the opcode cost (for CALL/CREATE: without the gas handed to the child); 0 when nothing. */
  gasCost: bigint;
  /** Gas before the next frame's opcode (whatever its depth), 0 for the last. */
  gasRemainingPostExecution: bigint;
  gasRefund: bigint;
  halt?: HaltReason;
  /** The address whose code runs (whose storage is used). */
  recipient: Address;
  /** Apparent value of the executing frame. */
  value: bigint;
  inputData: Uint8Array;
  /** The frame's output: RETURN's and REVERT's data, else empty. */
  outputData: Uint8Array;
  /** Stack before the opcode, bottom first (kept for the opcodes that need it, or all in vmTrace mode). */
  stack?: bigint[];
  /** Code of the innermost frame after the opcode: a child's when this CALL/CREATE started one. */
  code: Uint8Array;
  /** SELFDESTRUCT: the balance that went to the beneficiary. */
  refund?: bigint;
  precompiledGasCost?: bigint;
  /** A frame the EVM did not execute as an opcode (implicit STOP, precompile, failed creation). */
  virtual?: boolean;
  /** vmTrace: memory bytes written by the opcode, with their offset. */
  updatedMemory?: { offset: number; data: Uint8Array };
  /** vmTrace: the slot SSTORE wrote. */
  updatedStorage?: { key: bigint; value: bigint };
  /** vmTrace: the words the opcode left on the stack (top last), filled from the next frame. */
  pushed?: bigint[];
}

/** What a traced transaction produced besides its frames. */
export interface TxOutcome {
  output: Uint8Array;
  /** Present when the transaction reverted: the revert data. */
  revertReason?: Uint8Array;
  /** Gas left after refunds. */
  gasRemaining: bigint;
  /** Contract creation: the address the transaction's own creation got. */
  createdAddress?: Address;
}

export interface TracedTransaction {
  tx: TypedTransaction;
  index: number;
  frames: TraceFrame[];
  outcome: TxOutcome;
  /** With `stateDiff` on: what the transaction changed. */
  stateDiff?: StateDiffJson;
}

export interface FrameOptions {
  /** Keep every frame's stack and memory effects (vmTrace); otherwise only what flat traces read. */
  vm: boolean;
  /** Record each transaction's state diff (the traced VM's state manager must be private to the run). */
  stateDiff?: boolean;
}

interface OpenFrame {
  message: Message;
  depth: number;
  code: Uint8Array;
  /** Index of this frame's last recorded opcode; -1 before the first. */
  last: number;
  precompile: boolean;
  /** The frame's input, copied: the library may hand it out as a view of the caller's memory. */
  input: Uint8Array;
}

const STACK_OPS = new Set<number>([
  OP.CALL,
  OP.CALLCODE,
  OP.DELEGATECALL,
  OP.STATICCALL,
  OP.SELFDESTRUCT,
  OP.CREATE,
  OP.CREATE2,
]);
const TERMINAL = new Set<number>([OP.STOP, OP.RETURN, OP.REVERT, OP.SELFDESTRUCT, OP.INVALID]);
interface StepEmitter {
  on(name: 'step', l: (step: InterpreterStep, resolve?: (r?: unknown) => void) => void): void;
  off(name: 'step', l: (step: InterpreterStep, resolve?: (r?: unknown) => void) => void): void;
}

const DELEGATION_PREFIX = [0xef, 0x01, 0x00];
const SELFDESTRUCT_STATIC = 5000n;

/**
 * A block tracer that hands each transaction's frames to `onTransaction` when the transaction ends,
 * then forgets them: a block is traced one transaction at a time.
 */
export class FrameTracer implements BlockTracer {
  private frames: TraceFrame[] = [];
  private open: OpenFrame[] = [];
  private vm: VM | undefined;
  /** Only the transaction at this index is recorded (trace_transaction, trace_get). */
  onlyIndex: number | undefined;
  private recording = true;
  private recorder: StateDiffRecorder | undefined;
  /** vmTrace: a memory-writing opcode whose written bytes are read from the next opcode's memory. */
  private pendingMem: { frame: TraceFrame; offset: number; size: number; depth: number } | undefined;
  /** vmTrace: the caller's memory a finished CALL wrote its output to (reported on the opcode after it). */
  private pendingCallWrite: { depth: number; offset: number; data: Uint8Array } | undefined;

  constructor(
    private readonly options: FrameOptions,
    private readonly onTransaction: (traced: TracedTransaction) => void | Promise<void>,
  ) {}

  onBlockStart(_block: Block | undefined, vm: VM): void {
    if (this.options.stateDiff && !this.recorder) this.recorder = new StateDiffRecorder(vm.stateManager);
  }

  /**
   * What stopped the hand-over of a transaction's result (the reader went away, a deadline passed).
   * The EVM ignores a failed asynchronous hook, so it is thrown from the next transaction's start and
   * the caller checks it once the run is over.
   */
  failure: unknown;

  onTxStart(_tx: TypedTransaction, index: number, vm: VM): void {
    if (this.failure !== undefined) throw this.failure;
    this.vm = vm;
    this.recorder?.reset();
    this.frames = [];
    this.open = [];
    this.recording = this.onlyIndex === undefined || this.onlyIndex === index;
    // The EVM builds a step event (stack and memory copies) for every opcode while anyone listens:
    // listen only while a recorded transaction runs.
    if (this.recording) this.listen(vm);
  }

  async onTxEnd(tx: TypedTransaction, index: number, result: RunTxResult): Promise<void> {
    this.unlisten();
    if (!this.recording) return;
    const frames = this.frames;
    this.frames = [];
    const exec = result.execResult;
    const error = exec.exceptionError?.error;
    const reverted = error === 'revert';
    const outcome: TxOutcome = {
      output: reverted || error !== undefined ? EMPTY : exec.returnValue,
      revertReason: reverted ? exec.returnValue : undefined,
      gasRemaining: tx.gasLimit - result.totalGasSpent,
      createdAddress: result.createdAddress,
    };
    try {
      const stateDiff = this.recorder ? await this.recorder.diff() : undefined;
      await this.onTransaction({ tx, index, frames, outcome, stateDiff });
    } catch (err) {
      this.failure = err;
    }
  }

  async onEnter(message: Message): Promise<void> {
    if (!this.recording) return;
    const vm = this.vm;
    const precompile =
      message.to !== undefined &&
      vm !== undefined &&
      (vm.evm as { getPrecompile(a: Address): unknown }).getPrecompile(message.codeAddress) !== undefined;
    let code: Uint8Array = EMPTY;
    if (message.to === undefined) code = message.code instanceof Uint8Array ? message.code : message.data;
    else if (!precompile && vm) code = await codeAt(vm, message.codeAddress);
    const depth = message.depth;
    // The CALL/CREATE that started this frame reports the child's code as Besu's does.
    const parent = this.open[this.open.length - 1];
    if (parent && parent.last >= 0 && !precompile) {
      const caller = this.frames[parent.last];
      if (caller) caller.code = code;
    }
    this.open.push({ message, depth, code, last: -1, precompile, input: message.data.slice() });
  }

  onExit(result: EVMResult): void {
    if (!this.recording) return;
    const frame = this.open.pop();
    if (!frame) return;
    const exec = result.execResult;
    if (this.options.vm) this.noteCallOutput(frame, exec.returnValue);
    const error = exec.exceptionError?.error;
    const halt = error === undefined ? undefined : haltReasonOf(error);
    const gasLeft = frame.message.gasLimit - exec.executionGasUsed;
    if (frame.precompile) {
      const cost = exec.executionGasUsed;
      const parent = this.open[this.open.length - 1];
      const caller = parent && parent.last >= 0 ? this.frames[parent.last] : undefined;
      if (caller) {
        caller.precompiledGasCost = cost;
        if (halt) caller.halt = halt;
      } else if (this.frames.length === 0) {
        this.push({
          pc: 0,
          op: -1,
          opName: '',
          depth: frame.depth,
          gasRemaining: gasLeft,
          gasCost: 0n,
          gasRemainingPostExecution: 0n,
          gasRefund: 0n,
          recipient: frame.message.to as Address,
          value: frame.message.value,
          inputData: frame.input,
          outputData: exec.returnValue,
          code: EMPTY,
          precompiledGasCost: cost,
          virtual: true,
          halt,
        });
      }
      return;
    }
    const last = frame.last >= 0 ? this.frames[frame.last] : undefined;
    if (this.options.vm && last && last.pushed === undefined && halt === undefined) {
      // The frame's last opcode: what it pushed is on the stack the frame ended with.
      const stack = (
        exec as { runState?: { stack?: { getStack?(): bigint[] } } }
      ).runState?.stack?.getStack?.();
      if (stack) last.pushed = pushedBy(last, stack);
    }
    if (halt !== undefined) {
      if (
        error === 'code store out of gas' ||
        error === 'code size to deposit exceeds maximum code size' ||
        error === 'invalid bytecode deployed'
      ) {
        // The creation failed after its code returned: the last opcode that was not a RETURN carries it.
        for (let i = this.frames.length - 1; i >= 0; i--) {
          const f = this.frames[i] as TraceFrame;
          if (f.op !== OP.RETURN) {
            f.halt = halt;
            return;
          }
        }
        return;
      }
      if (last && last.halt === undefined) {
        last.halt = halt;
        // Besu's SELFDESTRUCT stops at its static cost when the gas does not even cover that.
        if (
          last.op === OP.SELFDESTRUCT &&
          halt === 'INSUFFICIENT_GAS' &&
          last.gasRemaining < SELFDESTRUCT_STATIC
        )
          last.gasCost = SELFDESTRUCT_STATIC;
      } else if (!last) this.pushVirtual(frame, gasLeft, halt);
      return;
    }
    if (error === 'revert') return;
    if (last && TERMINAL.has(last.op)) return;
    // The code ran out (or there was none): the STOP the frame ends with.
    this.push({
      pc: frame.code.length,
      op: OP.STOP,
      opName: 'STOP',
      depth: frame.depth,
      gasRemaining: gasLeft,
      gasCost: 0n,
      gasRemainingPostExecution: 0n,
      gasRefund: exec.gasRefund ?? 0n,
      recipient: frame.message.to as Address,
      value: frame.message.value,
      inputData: frame.input,
      outputData: EMPTY,
      code: frame.code,
      virtual: true,
    });
  }

  /** One opcode (listened to only while a recorded transaction runs); a promise only for SELFDESTRUCT. */
  private step(step: InterpreterStep): Promise<void> | undefined {
    const frame = this.open[this.open.length - 1];
    if (!frame) return;
    const op = step.opcode.code;
    const keepStack = this.options.vm || STACK_OPS.has(op);
    const stack = step.stack;
    const n = stack.length;
    let outputData: Uint8Array = EMPTY;
    if ((op === OP.RETURN || op === OP.REVERT) && n >= 2) {
      outputData = readMemory(step.memory, stack[n - 1] as bigint, stack[n - 2] as bigint);
    }
    const t: TraceFrame = {
      pc: step.pc,
      op,
      opName: step.opcode.name,
      depth: step.depth,
      gasRemaining: step.gasLeft,
      gasCost: step.opcode.dynamicFee ?? BigInt(step.opcode.fee),
      gasRemainingPostExecution: 0n,
      gasRefund: step.gasRefund,
      recipient: step.address,
      value: frame.message.value,
      inputData: frame.input,
      outputData,
      // The event's stack is a copy made for it.
      stack: keepStack ? stack : undefined,
      code: frame.code,
    };
    if (this.options.vm) {
      const pending = this.pendingMem;
      if (pending && pending.depth === step.depth) {
        pending.frame.updatedMemory = {
          offset: pending.offset,
          data: padded(step.memory, pending.offset, pending.size),
        };
      }
      this.pendingMem = undefined;
      const write = this.pendingCallWrite;
      if (write && write.depth === step.depth) t.updatedMemory = { offset: write.offset, data: write.data };
      this.pendingCallWrite = undefined;
      recordEffects(t, step);
      const region = memoryRegion(op, stack);
      if (region) this.pendingMem = { frame: t, ...region, depth: step.depth };
    }
    frame.last = this.frames.length;
    this.push(t);
    if (op === OP.SELFDESTRUCT) {
      return step.stateManager.getAccount(step.address).then((account) => {
        t.refund = account?.balance ?? 0n;
      });
    }
    return undefined;
  }

  private readonly stepListener = (step: InterpreterStep, resolve?: (r?: unknown) => void): void => {
    const out = this.step(step);
    if (out)
      out.then(
        () => resolve?.(),
        () => resolve?.(),
      );
    else resolve?.();
  };

  private listening: VM | undefined;

  private listen(vm: VM): void {
    if (this.listening) return;
    (vm.evm.events as unknown as StepEmitter | undefined)?.on('step', this.stepListener);
    this.listening = vm;
  }

  private unlisten(): void {
    (this.listening?.evm.events as unknown as StepEmitter | undefined)?.off('step', this.stepListener);
    this.listening = undefined;
  }

  /** What a finished CALL-family child wrote into its caller's memory (Besu reports it on the caller's next opcode). */
  private noteCallOutput(child: OpenFrame, output: Uint8Array): void {
    this.pendingMem = undefined;
    this.pendingCallWrite = undefined;
    const parent = this.open[this.open.length - 1];
    const call = parent && parent.last >= 0 ? this.frames[parent.last] : undefined;
    if (!call?.stack || child.message.to === undefined) return;
    const s = call.stack;
    const n = s.length;
    const withValue = call.op === OP.CALL || call.op === OP.CALLCODE;
    if (!withValue && call.op !== OP.DELEGATECALL && call.op !== OP.STATICCALL) return;
    const offset = s[n - 1 - (withValue ? 5 : 4)];
    const size = s[n - 1 - (withValue ? 6 : 5)];
    if (offset === undefined || size === undefined) return;
    const length = size > BigInt(output.length) ? output.length : Number(size);
    if (length <= 0) return;
    this.pendingCallWrite = { depth: parent.depth, offset: Number(offset), data: output.slice(0, length) };
  }

  private pushVirtual(frame: OpenFrame, gasLeft: bigint, halt: HaltReason): void {
    this.push({
      pc: 0,
      op: -1,
      opName: '',
      depth: frame.depth,
      gasRemaining: gasLeft,
      gasCost: 0n,
      gasRemainingPostExecution: 0n,
      gasRefund: 0n,
      recipient: (frame.message.to ?? frame.message.caller) as Address,
      value: frame.message.value,
      inputData: frame.input,
      outputData: EMPTY,
      code: frame.code,
      virtual: true,
      halt,
    });
  }

  private push(t: TraceFrame): void {
    const prev = this.frames[this.frames.length - 1];
    if (prev) {
      prev.gasRemainingPostExecution = t.gasRemaining;
      if (this.options.vm && prev.pushed === undefined && t.stack && prev.depth === t.depth)
        prev.pushed = pushedBy(prev, t.stack);
    }
    this.frames.push(t);
  }
}

async function codeAt(vm: VM, address: Address): Promise<Uint8Array> {
  const code = await vm.stateManager.getCode(address);
  if (
    vm.common.isActivatedEIP(7702) &&
    code.length === 23 &&
    code[0] === DELEGATION_PREFIX[0] &&
    code[1] === DELEGATION_PREFIX[1] &&
    code[2] === DELEGATION_PREFIX[2]
  ) {
    return vm.stateManager.getCode(new Address(code.slice(3, 23)));
  }
  return code;
}

function readMemory(memory: Uint8Array, offset: bigint, length: bigint): Uint8Array {
  if (length === 0n) return EMPTY;
  const out = new Uint8Array(Number(length));
  const start = Number(offset);
  if (start < memory.length) out.set(memory.subarray(start, Math.min(memory.length, start + out.length)));
  return out;
}

/** How many words each opcode leaves on the stack (the vmTrace `push` list). */
function producedBy(op: number): number {
  if (op >= 0x60 && op <= 0x7f) return 1; // PUSH1..PUSH32
  if (op >= 0x80 && op <= 0x8f) return op - 0x80 + 2; // DUPn: the whole window
  if (op >= 0x90 && op <= 0x9f) return op - 0x90 + 2; // SWAPn
  return PRODUCES.has(op) ? 1 : 0;
}

const PRODUCES = new Set<number>([
  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
  0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x20, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x38, 0x3a,
  0x3b, 0x3d, 0x3f, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x51, 0x54, 0x58, 0x59,
  0x5a, 0x5c, 0x5f, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa,
]);

function pushedBy(prev: TraceFrame, nextStack: bigint[]): bigint[] {
  const count = producedBy(prev.op);
  if (count === 0) return [];
  const n = nextStack.length;
  const out: bigint[] = [];
  for (let i = 0; i < count && i < n; i++) out.push(nextStack[n - 1 - i] as bigint);
  return out;
}

/** The memory region an opcode writes (or MLOAD reads), by its stack inputs; undefined when none. */
function memoryRegion(op: number, stack: bigint[]): { offset: number; size: number } | undefined {
  const n = stack.length;
  const top = (i: number): bigint | undefined => stack[n - 1 - i];
  let offset: bigint | undefined;
  let size: bigint | undefined;
  switch (op) {
    case 0x37: // CALLDATACOPY
    case 0x39: // CODECOPY
    case 0x3e: // RETURNDATACOPY
      offset = top(0);
      size = top(2);
      break;
    case 0x3c: // EXTCODECOPY
      offset = top(1);
      size = top(3);
      break;
    default:
      return undefined;
  }
  if (offset === undefined || size === undefined || size === 0n || size > 1n << 32n || offset > 1n << 32n)
    return undefined;
  return { offset: Number(offset), size: Number(size) };
}

function padded(memory: Uint8Array, offset: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  if (offset < memory.length) out.set(memory.subarray(offset, Math.min(memory.length, offset + size)));
  return out;
}

/** The memory and storage an opcode writes, as vmTrace reports them (read from its inputs). */
function recordEffects(t: TraceFrame, step: InterpreterStep): void {
  const stack = step.stack;
  const n = stack.length;
  const top = (i: number): bigint => stack[n - 1 - i] as bigint;
  switch (t.op) {
    case 0x51: // MLOAD reads (and may only zero-extend) memory: what it reports is known before it runs.
      if (n >= 1 && top(0) < 1n << 32n) {
        const offset = Number(top(0));
        const data = padded(step.memory, offset, 32);
        t.updatedMemory = { offset, data };
        t.pushed = [BigInt(bytesToHexString(data))];
      }
      break;
    case OP.SSTORE:
      if (n >= 2) t.updatedStorage = { key: top(0), value: top(1) };
      break;
    case 0x52: // MSTORE
      if (n >= 2) t.updatedMemory = { offset: Number(top(0)), data: wordBytes(top(1)) };
      break;
    case 0x53: // MSTORE8
      if (n >= 2) t.updatedMemory = { offset: Number(top(0)), data: Uint8Array.of(Number(top(1) & 0xffn)) };
      break;
    default:
      break;
  }
}

function bytesToHexString(data: Uint8Array): string {
  return `0x${Buffer.from(data).toString('hex')}`;
}
