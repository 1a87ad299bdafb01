/**
 * Collects the logs of one simulated transaction frame by frame, so that logs of a failed frame are
 * dropped with it (a failed transaction's top-level logs still use up their log indices, as in
 * go-ethereum, whose answers the cross-client fixtures record), and (when asked) records every ether movement as an ERC-7528 Transfer log from
 * 0xeeee…eeee: the transaction's value, each CALL/CREATE value and each SELFDESTRUCT balance, in the
 * order they happen among the contract logs.
 */
import type { EVMInterface, InterpreterStep, Message } from '@ethereumjs/evm';
import { Address, hexToBytes, setLengthLeft } from '@ethereumjs/util';

export const TRANSFER_TOPIC = hexToBytes(
  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
);
export const TRANSFER_ADDRESS = hexToBytes('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');

export interface TracedLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

interface Frame {
  logs: TracedLog[];
  /** A creation's transfer log, whose recipient is known only once the address is derived. */
  pendingCreate?: { log: TracedLog; message: Message };
}

function word(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): TracedLog {
  return {
    address: TRANSFER_ADDRESS,
    topics: [TRANSFER_TOPIC, setLengthLeft(from, 32), setLengthLeft(to, 32)],
    data: word(value),
  };
}

const LOG0 = 0xa0;
const LOG4 = 0xa4;
const SELFDESTRUCT = 0xff;

export class TransferTracer {
  private frames: Frame[] = [];
  private result: TracedLog[] = [];
  /** Logs the failed transaction had produced at its top level: they are dropped, their indices stay spent. */
  private spent = 0;
  private readonly onBefore = (message: Message): void => this.enter(message);
  private readonly onAfter = (result: { execResult: { exceptionError?: unknown } }): void =>
    this.exit(result.execResult.exceptionError !== undefined);
  private readonly onStep = (step: InterpreterStep, resolve?: (result?: unknown) => void): void => {
    this.step(step).then(
      () => resolve?.(),
      () => resolve?.(),
    );
  };

  constructor(
    private readonly evm: EVMInterface,
    /** Whether ether movements become Transfer logs (contract logs are always collected). */
    private readonly transfers: boolean,
  ) {}

  attach(): void {
    this.evm.events?.on('beforeMessage', this.onBefore);
    this.evm.events?.on('afterMessage', this.onAfter);
    this.evm.events?.on('step', this.onStep);
  }

  detach(): void {
    this.evm.events?.off('beforeMessage', this.onBefore);
    this.evm.events?.off('afterMessage', this.onAfter);
    this.evm.events?.off('step', this.onStep);
  }

  reset(): void {
    this.frames = [];
    this.result = [];
    this.spent = 0;
  }

  /** How many log indices the finished transaction used up. */
  indicesUsed(): number {
    return this.result.length + this.spent;
  }

  /** The logs of the finished transaction (empty when it failed). */
  logs(): TracedLog[] {
    return this.result;
  }

  private enter(message: Message): void {
    const frame: Frame = { logs: [] };
    this.frames.push(frame);
    const isDelegate = message.delegatecall;
    const isCallCode =
      message.to !== undefined &&
      message.codeAddress !== undefined &&
      !message.to.equals(message.codeAddress);
    if (!this.transfers || isDelegate || isCallCode || message.value <= 0n) return;
    if (message.to === undefined) {
      const log = transferLog(message.caller.bytes, new Uint8Array(20), message.value);
      frame.logs.push(log);
      frame.pendingCreate = { log, message };
    } else {
      frame.logs.push(transferLog(message.caller.bytes, message.to.bytes, message.value));
    }
  }

  private exit(failed: boolean): void {
    const frame = this.frames.pop();
    if (!frame) return;
    if (frame.pendingCreate) {
      const to = frame.pendingCreate.message.to;
      if (to) frame.pendingCreate.log.topics[2] = setLengthLeft(to.bytes, 32);
    }
    const parent = this.frames[this.frames.length - 1];
    if (failed) {
      if (!parent) {
        this.result = [];
        this.spent = frame.logs.length;
      }
      return;
    }
    if (parent) parent.logs.push(...frame.logs);
    else this.result = frame.logs;
  }

  private async step(step: InterpreterStep): Promise<void> {
    const op = step.opcode.code;
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return;
    if (op >= LOG0 && op <= LOG4) {
      const stack = step.stack;
      const n = stack.length;
      const offset = Number(stack[n - 1]);
      const size = Number(stack[n - 2]);
      const topics: Uint8Array[] = [];
      for (let i = 0; i < op - LOG0; i++) topics.push(word(stack[n - 3 - i] as bigint));
      const data = new Uint8Array(size);
      const mem = step.memory;
      if (offset < mem.length) data.set(mem.subarray(offset, Math.min(mem.length, offset + size)));
      frame.logs.push({ address: step.address.bytes, topics, data });
      return;
    }
    if (op === SELFDESTRUCT && this.transfers) {
      const stack = step.stack;
      const target = setLengthLeft(word(stack[stack.length - 1] as bigint).subarray(12), 20);
      const account = await step.stateManager.getAccount(step.address);
      const balance = account?.balance ?? 0n;
      if (balance > 0n) frame.logs.push(transferLog(step.address.bytes, new Address(target).bytes, balance));
    }
  }
}
