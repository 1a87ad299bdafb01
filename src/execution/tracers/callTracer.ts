/**
 * callTracer: the transaction's call frames as a tree, as go-ethereum's tracer of that name writes
 * them (Besu serves the same shape): `from, gas, gasUsed, to, input, output, error, revertReason,
 * calls, value, type`, absent members omitted. `onlyTopCall` keeps the transaction's own frame;
 * `withLog` adds each frame's logs (`address, topics, data, position`).
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { TypedTransaction } from '@ethereumjs/tx';
import { type Address, bytesToHex } from '@ethereumjs/util';
import type { TraceOptions, TxOutcome } from './options.js';
import { decodeRevertText } from './revert.js';
import type { Deadline } from './sink.js';

interface CallFrame {
  type: string;
  from: string;
  gas: bigint;
  gasUsed: bigint;
  to?: string;
  input: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls: CallFrame[];
  value?: bigint;
  logs?: { address: string; topics: string[]; data: string; position: number }[];
}

const OPS: Record<number, string> = {
  240: 'CREATE',
  241: 'CALL',
  242: 'CALLCODE',
  244: 'DELEGATECALL',
  245: 'CREATE2',
  250: 'STATICCALL',
};

/** go-ethereum's wording of the EVM library's errors (the texts the cross-client fixtures hold). */
export function gethError(error: string, step: InterpreterStep | undefined): string {
  if (error.startsWith('invalid JUMP')) return 'invalid jump destination';
  switch (error) {
    case 'revert':
      return 'execution reverted';
    case 'out of gas':
      return 'out of gas';
    case 'code store out of gas':
      return 'contract creation code storage out of gas';
    case 'stack underflow':
      return step
        ? `stack underflow (${step.stack.length} <=> ${minStack(step.opcode.code)})`
        : 'stack underflow';
    case 'stack overflow':
      return 'stack limit reached 1024 (1023)';
    case 'invalid opcode':
      return step
        ? `invalid opcode: opcode 0x${step.opcode.code.toString(16)} not defined`
        : 'invalid opcode';
    case 'static state change':
      return 'write protection';
    case 'value out of range':
      return 'return data out of bounds';
    case 'code size to deposit exceeds maximum code size':
      return 'max code size exceeded';
    case 'create collision':
      return 'contract address collision';
    case 'invalid bytecode deployed':
      return 'invalid code: must not begin with 0xef';
    default:
      return error;
  }
}

/** Stack items an opcode needs (for go-ethereum's underflow message). */
function minStack(op: number): number {
  if (op >= 0x80 && op <= 0x8f) return op - 0x7f;
  if (op >= 0x90 && op <= 0x9f) return op - 0x8e;
  if (op >= 0xa0 && op <= 0xa4) return op - 0xa0 + 2;
  const table: Record<number, number> = {
    1: 2,
    2: 2,
    3: 2,
    4: 2,
    5: 2,
    6: 2,
    7: 2,
    8: 3,
    9: 3,
    10: 2,
    11: 2,
    16: 2,
    17: 2,
    18: 2,
    19: 2,
    20: 2,
    21: 1,
    22: 2,
    23: 2,
    24: 2,
    25: 1,
    26: 2,
    27: 2,
    28: 2,
    29: 2,
    32: 2,
    49: 1,
    53: 1,
    55: 3,
    57: 3,
    59: 1,
    60: 4,
    62: 3,
    63: 1,
    64: 1,
    73: 1,
    80: 1,
    81: 1,
    82: 2,
    83: 2,
    84: 1,
    85: 2,
    86: 1,
    87: 2,
    92: 1,
    93: 2,
    94: 3,
    240: 3,
    241: 7,
    242: 7,
    243: 2,
    244: 6,
    245: 4,
    250: 6,
    253: 2,
    255: 1,
  };
  return table[op] ?? 0;
}

const hex = (b: Uint8Array): string => bytesToHex(b);
const addr = (a: Address | undefined): string | undefined => a?.toString();

export class CallTracer {
  private stack: CallFrame[] = [];
  private root: CallFrame | undefined;
  /** The CALL/CREATE opcode that will open the next frame, with the step it ran at. */
  private pendingOp: { step: InterpreterStep; type: string } | undefined;
  private lastStep: InterpreterStep[] = [];

  constructor(
    private readonly options: TraceOptions,
    private readonly deadline: Deadline,
  ) {}

  onEnter(message: Message): void {
    const parentStep = this.pendingOp;
    this.pendingOp = undefined;
    let type = parentStep?.type ?? (message.to === undefined ? 'CREATE' : 'CALL');
    if (this.stack.length === 0) type = message.to === undefined ? 'CREATE' : 'CALL';
    const frame: CallFrame = {
      type,
      from: message.caller.toString(),
      gas: message.gasLimit,
      gasUsed: 0n,
      to: addr(message.to),
      input: hex(
        message.to === undefined && message.data.length === 0 && message.code instanceof Uint8Array
          ? message.code
          : message.data,
      ),
      calls: [],
      value: type === 'STATICCALL' || type === 'DELEGATECALL' ? undefined : message.value,
    };
    if (type === 'DELEGATECALL') frame.value = undefined;
    this.stack.push(frame);
    this.lastStep.push(undefined as unknown as InterpreterStep);
  }

  onExit(result: EVMResult): void {
    const frame = this.stack.pop();
    const step = this.lastStep.pop();
    if (!frame) return;
    const exec = result.execResult;
    frame.gasUsed = exec.executionGasUsed;
    if (result.createdAddress) frame.to = result.createdAddress.toString();
    const err = exec.exceptionError;
    if (err) {
      frame.error = gethError(err.error, step);
      // A SELFDESTRUCT that failed (out of gas) moved nothing.
      if (step?.opcode.code === 0xff && frame.calls[frame.calls.length - 1]?.type === 'SELFDESTRUCT')
        frame.calls.pop();
      if (err.error === 'revert') {
        if (exec.returnValue.length > 0) frame.output = hex(exec.returnValue);
        const reason = decodeRevertText(exec.returnValue);
        if (reason !== undefined) frame.revertReason = reason;
      } else {
        frame.gasUsed = frame.gas;
      }
      if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = undefined;
      frame.logs = undefined;
    } else if (exec.returnValue.length > 0 && frame.type !== 'CREATE' && frame.type !== 'CREATE2') {
      frame.output = hex(exec.returnValue);
    }
    const parent = this.stack[this.stack.length - 1];
    if (parent) {
      if (!this.options.onlyTopCall) parent.calls.push(frame);
    } else this.root = frame;
  }

  onStep(step: InterpreterStep): Promise<void> | undefined {
    this.deadline.check();
    const depth = this.stack.length;
    // A call the EVM refused before entering it (balance, depth) leaves no frame: record it here.
    if (this.pendingOp && this.pendingOp.step.depth + 1 === depth) this.refused(this.pendingOp);
    this.pendingOp = undefined;
    this.lastStep[depth - 1] = step;
    const op = step.opcode.code;
    const type = OPS[op];
    if (type !== undefined) this.pendingOp = { step, type };
    else if (this.options.withLog && op >= 0xa0 && op <= 0xa4) this.log(step);
    else if (op === 0xff && !this.options.onlyTopCall) return this.selfDestruct(step);
    return undefined;
  }

  /** SELFDESTRUCT shows as a frame of its own, moving the contract's balance to the beneficiary. */
  private async selfDestruct(step: InterpreterStep): Promise<void> {
    const frame = this.stack[this.stack.length - 1];
    if (!frame) return;
    const target = step.stack[step.stack.length - 1] ?? 0n;
    const balance = (await step.stateManager.getAccount(step.address))?.balance ?? 0n;
    frame.calls.push({
      type: 'SELFDESTRUCT',
      from: step.address.toString(),
      gas: 0n,
      gasUsed: 0n,
      to: `0x${(target & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`,
      input: '0x',
      calls: [],
      value: balance,
    });
  }

  private refused(p: { step: InterpreterStep; type: string }): void {
    const parent = this.stack[this.stack.length - 1];
    if (!parent || this.options.onlyTopCall) return;
    const s = p.step.stack;
    const n = s.length;
    const isCreate = p.type === 'CREATE' || p.type === 'CREATE2';
    const value =
      isCreate || p.type === 'CALL' || p.type === 'CALLCODE' ? (s[n - (isCreate ? 1 : 3)] ?? 0n) : 0n;
    const to = isCreate ? undefined : `0x${(s[n - 2] ?? 0n).toString(16).padStart(40, '0').slice(-40)}`;
    const [off, size] = isCreate
      ? [s[n - 2] ?? 0n, s[n - 3] ?? 0n]
      : p.type === 'CALL' || p.type === 'CALLCODE'
        ? [s[n - 4] ?? 0n, s[n - 5] ?? 0n]
        : [s[n - 3] ?? 0n, s[n - 4] ?? 0n];
    const mem = p.step.memory;
    const input = new Uint8Array(Number(size < 1n << 24n ? size : 0n));
    const o = Number(off < 1n << 32n ? off : 0n);
    if (o < mem.length) input.set(mem.subarray(o, Math.min(mem.length, o + input.length)));
    // The gas the callee would have had: all but a 64th of what is left after the opcode's cost.
    const left = p.step.gasLeft - (p.step.opcode.dynamicFee ?? 0n);
    const allBut64th = left - left / 64n;
    let gas = isCreate ? allBut64th : (s[n - 1] ?? 0n) < allBut64th ? (s[n - 1] ?? 0n) : allBut64th;
    if (!isCreate && value > 0n) gas += 2300n;
    parent.calls.push({
      type: p.type,
      from: p.step.address.toString(),
      gas,
      gasUsed: 0n,
      to,
      input: hex(input),
      error: p.step.depth + 1 >= 1025 ? 'max call depth exceeded' : 'insufficient balance for transfer',
      calls: [],
      value,
    });
  }

  private log(step: InterpreterStep): void {
    const frame = this.stack[this.stack.length - 1];
    if (!frame) return;
    const s = step.stack;
    const n = s.length;
    const off = Number(s[n - 1] ?? 0n);
    const size = Number(s[n - 2] ?? 0n);
    const topics: string[] = [];
    for (let i = 0; i < step.opcode.code - 0xa0; i++)
      topics.push(`0x${(s[n - 3 - i] ?? 0n).toString(16).padStart(64, '0')}`);
    const data = new Uint8Array(size);
    if (off < step.memory.length)
      data.set(step.memory.subarray(off, Math.min(step.memory.length, off + size)));
    frame.logs ??= [];
    frame.logs.push({
      address: step.address.toString(),
      topics,
      data: hex(data),
      position: frame.calls.length,
    });
  }

  result(tx: TypedTransaction, outcome: TxOutcome): string {
    const root = this.root;
    if (!root) return 'null';
    root.gas = tx.gasLimit;
    root.gasUsed = outcome.gasUsed;
    if (tx.to === undefined) root.type = 'CREATE';
    return JSON.stringify(toJson(root));
  }
}

function toJson(f: CallFrame): Record<string, unknown> {
  const out: Record<string, unknown> = {
    from: f.from,
    gas: `0x${f.gas.toString(16)}`,
    gasUsed: `0x${f.gasUsed.toString(16)}`,
  };
  if (f.to !== undefined) out.to = f.to;
  out.input = f.input;
  if (f.output !== undefined) out.output = f.output;
  if (f.error !== undefined) out.error = f.error;
  if (f.revertReason !== undefined) out.revertReason = f.revertReason;
  if (f.logs && f.logs.length > 0) out.logs = f.logs;
  if (f.calls.length > 0) out.calls = f.calls.map(toJson);
  if (f.value !== undefined) out.value = `0x${f.value.toString(16)}`;
  out.type = f.type;
  return out;
}
