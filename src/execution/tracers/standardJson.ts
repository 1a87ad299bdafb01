/**
 * EIP-3155 lines, as Besu writes them to files (debug_standardTraceBlockToFile): one JSON object per
 * executed opcode, in strict mode, keys `pc, op, gas, gasCost, memory, memSize, stack, returnData,
 * depth, refund, opName, error`: `op` the opcode number, `gas` and `gasCost` hex (the CALL family's
 * cost includes the gas handed to the callee), `memory` the whole memory before the opcode as one hex
 * string (when enabled and not empty), `stack` before it (bottom first, minimal hex), `returnData`
 * the last callee's answer when there is one, `depth` 1 for the transaction's own frame, and `error`
 * the halt's description, or the revert data.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import { bytesToHex } from '@ethereumjs/util';
import type { BlockTracer } from '../tracer.js';
import type { Deadline } from './sink.js';

/** Besu's descriptions of exceptional halts, by the EVM library's error text. */
function haltDescription(error: string): string {
  if (error.startsWith('invalid JUMP')) return 'Bad jump destination';
  switch (error) {
    case 'out of gas':
    case 'code store out of gas':
      return 'Out of gas';
    case 'stack underflow':
      return 'Stack underflow';
    case 'stack overflow':
      return 'Out of stack';
    case 'invalid opcode':
      return 'Bad instruction';
    case 'static state change':
      return 'Illegal state change';
    case 'value out of range':
      return 'Out of bounds';
    case 'code size to deposit exceeds maximum code size':
      return 'Code is too large';
    case 'invalid bytecode deployed':
      return 'Code is invalid';
    default:
      return 'Precompile error';
  }
}

const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);

interface Pending {
  head: string;
  tail: string;
  gasCost: bigint;
  op: number;
  revert?: Uint8Array;
}

interface Frame {
  pending: Pending | undefined;
  returnData: Uint8Array;
}

export class StandardJsonTracer implements BlockTracer {
  private frames: Frame[] = [];
  /** The file's back-pressure, awaited at the next hook. */
  private wait: Promise<void> | undefined;

  constructor(
    private readonly memory: boolean,
    /** Receives each line (without its newline). */
    private readonly line: (text: string) => Promise<void> | undefined,
    private readonly deadline: Deadline,
  ) {}

  onEnter(message: Message): Promise<void> | undefined {
    const parent = this.frames[this.frames.length - 1];
    if (parent?.pending && CALLS.has(parent.pending.op)) {
      const p = parent.pending;
      parent.pending = undefined;
      p.gasCost += message.gasLimit;
      this.emit(p, undefined);
    } else if (parent?.pending) {
      const p = parent.pending;
      parent.pending = undefined;
      this.emit(p, undefined);
    }
    this.frames.push({ pending: undefined, returnData: new Uint8Array() });
    return this.drain();
  }

  onExit(result: EVMResult): Promise<void> | undefined {
    const frame = this.frames.pop();
    const err = result.execResult.exceptionError;
    if (frame?.pending) {
      const p = frame.pending;
      frame.pending = undefined;
      if (err && err.error !== 'revert') this.emit(p, haltDescription(err.error));
      else if (p.revert !== undefined) this.emit(p, bytesToHex(p.revert));
      else this.emit(p, undefined);
    }
    const parent = this.frames[this.frames.length - 1];
    if (parent) {
      const out = result.execResult.returnValue;
      parent.returnData = result.createdAddress && !err ? new Uint8Array() : (out ?? new Uint8Array());
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
      this.emit(p, undefined);
    }
    const op = step.opcode.code;
    const memSize = step.memory.length;
    const head = `{"pc":${step.pc},"op":${op},"gas":"0x${step.gasLeft.toString(16)}","gasCost":"0x`;
    let tail = '",';
    if (this.memory && memSize > 0) tail += `"memory":"${bytesToHex(step.memory)}",`;
    tail += `"memSize":${memSize},"stack":[`;
    const stack = step.stack;
    for (let i = 0; i < stack.length; i++)
      tail += `${i === 0 ? '"0x' : ',"0x'}${(stack[i] as bigint).toString(16)}"`;
    tail += '],';
    if (frame.returnData.length > 0) tail += `"returnData":"${bytesToHex(frame.returnData)}",`;
    tail += `"depth":${step.depth + 1},"refund":${step.gasRefund},"opName":"${step.opcode.name}"`;
    frame.pending = {
      head,
      tail,
      gasCost: step.opcode.dynamicFee ?? BigInt(step.opcode.fee),
      op,
      revert: op === 0xfd ? (step.error ?? new Uint8Array()) : undefined,
    };
    return this.drain();
  }

  private drain(): Promise<void> | undefined {
    const w = this.wait;
    this.wait = undefined;
    return w;
  }

  private emit(p: Pending, error: string | undefined): void {
    let text = `${p.head}${p.gasCost.toString(16)}${p.tail}`;
    if (error !== undefined) text += `,"error":"${error}"`;
    const w = this.line(`${text}}`);
    if (w !== undefined) this.wait = this.wait ? this.wait.then(() => w) : w;
  }
}
