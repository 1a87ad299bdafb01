/**
 * A synchronous EVM interpreter for chains at Berlin or later: simulated calls (eth_call,
 * eth_estimateGas) and the transaction messages of block import and block building
 * (`blockCall.ts`). It runs every opcode of those forks with the protocol's gas rules (EIP-2929
 * warm/cold access, EIP-2200/3529 SSTORE, EIP-150 call gas, memory expansion) over a `CallWorld`;
 * contract creation and SELFDESTRUCT only where the environment carries their rules (`lifecycle`,
 * block execution). Anything it leaves to the EVM library throws `Fallback` and the caller re-runs
 * the call or message there, so answers are always complete.
 *
 * Why it exists: the library's EVM is asynchronous throughout and allocates per step and per frame;
 * a view call spent most of its time in that machinery rather than in its few opcodes. Here a stack
 * of bigints, gas as a number and one switch per opcode do the same work synchronously.
 */
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt } from '@ethereumjs/util';
import { keccak256 } from '../../crypto/index.js';
import { bytesToHexKey } from '../../state/trieStore.js';
import { codeInfo, readImmediate } from './analysis.js';
import { Fallback } from './fallback.js';
import { type CallWorld, slotKeyOf } from './world.js';

const MASK = (1n << 256n) - 1n;
const SIGN = 1n << 255n;
const MAX_DEPTH = 1024;
/** EIP-2681: an account's nonce stays below 2^64 - 1. */
const MAX_NONCE = (1n << 64n) - 1n;
/** Beyond this many memory words the expansion alone costs more than any gas this runs with. */
const MAX_WORDS = 1 << 25;
const EMPTY = new Uint8Array(0);

export enum Outcome {
  Success = 0,
  Revert = 1,
  Halt = 2,
}

export interface FrameResult {
  outcome: Outcome;
  gasLeft: number;
  output: Uint8Array;
  /** Why the frame halted, in Besu's words (`Out of gas`, `Invalid opcode: 0xfe` …). */
  error?: string;
}

export interface PrecompileOutcome {
  ok: boolean;
  gasUsed: number;
  output: Uint8Array;
  /** Why it failed, in the EVM library's words (mapped as the library path maps them). */
  error?: string;
}

/** What does not change during one call: fork rules, block and transaction environment. */
export interface CallEnv {
  world: CallWorld;
  /** 1 where the opcode exists at this fork. */
  valid: Uint8Array;
  /** Static gas per opcode at this fork. */
  fee: Int32Array;
  sstoreClearRefund: number;
  origin: bigint;
  gasPrice: bigint;
  coinbase: bigint;
  timestamp: bigint;
  number: bigint;
  prevRandao: bigint;
  blockGasLimit: bigint;
  chainId: bigint;
  baseFee: bigint;
  blobBaseFee: bigint;
  blobHashes: bigint[];
  delegation: boolean;
  /**
   * Contract creation and SELFDESTRUCT rules; without them (simulated calls) both are left to the
   * library's EVM.
   */
  lifecycle?: LifecycleRules;
  blockHash(number: bigint): bigint;
  /** Precompiles by address key. */
  isPrecompile(key: string): boolean;
  runPrecompile(key: string, data: Uint8Array, gas: number): PrecompileOutcome;
}

/** The fork's rules for contract creation and SELFDESTRUCT. */
export interface LifecycleRules {
  maxCodeSize: number;
  /** EIP-3860's limit, 0 before Shanghai. */
  maxInitCodeSize: number;
  initCodeWordGas: number;
  createDataGas: number;
  /** EIP-3541: deployed code may not start with 0xef. */
  rejectEf: boolean;
  /** EIP-6780: SELFDESTRUCT only removes accounts created in the same transaction. */
  eip6780: boolean;
  selfdestructRefund: number;
}

export interface Message {
  code: Uint8Array;
  /** The account whose storage and balance the code works on. */
  address: string;
  caller: bigint;
  value: bigint;
  data: Uint8Array;
  gas: number;
  isStatic: boolean;
  depth: number;
}

class Halt extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const OOG = 'Out of gas';

/** Stack items each opcode takes and leaves (for the underflow and overflow checks). */
const IN = new Uint8Array(256);
const OUT = new Uint8Array(256);
/** Opcodes whose cost depends on their operands: their operands are checked before any gas. */
const DYNAMIC = new Uint8Array(256);
{
  const set = (ops: number[], i: number, o: number) => {
    for (const op of ops) {
      IN[op] = i;
      OUT[op] = o;
    }
  };
  set([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b], 2, 1);
  set([0x08, 0x09], 3, 1);
  set([0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a, 0x1b, 0x1c, 0x1d, 0x20], 2, 1);
  set([0x15, 0x19, 0x1e, 0x31, 0x35, 0x3b, 0x3f, 0x40, 0x49, 0x51, 0x54, 0x5c], 1, 1);
  set(
    [0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4a],
    0,
    1,
  );
  set([0x58, 0x59, 0x5a, 0x5f], 0, 1);
  set([0x37, 0x39, 0x3e, 0x5e], 3, 0);
  set([0x3c], 4, 0);
  set([0x50, 0x56], 1, 0);
  set([0x52, 0x53, 0x55, 0x57, 0x5d, 0xf3, 0xfd], 2, 0);
  for (let n = 0; n <= 4; n++) set([0xa0 + n], 2 + n, 0);
  set([0xf1, 0xf2], 7, 1);
  set([0xf4, 0xfa], 6, 1);
  set([0xf0], 3, 1);
  set([0xf5], 4, 1);
  set([0xff], 1, 0);
  for (let op = 0x60; op <= 0x7f; op++) set([op], 0, 1);
  for (let n = 1; n <= 16; n++) {
    set([0x7f + n], n, n + 1);
    set([0x8f + n], n + 1, n + 1);
  }
  for (const op of [
    0x0a, 0x20, 0x31, 0x37, 0x39, 0x3b, 0x3c, 0x3e, 0x3f, 0x51, 0x52, 0x53, 0x54, 0x55, 0x5e,
  ]) {
    DYNAMIC[op] = 1;
  }
  for (const op of [0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xfa, 0xfd, 0xff]) {
    DYNAMIC[op] = 1;
  }
}

function toSigned(x: bigint): bigint {
  return x >= SIGN ? x - (1n << 256n) : x;
}

function expMod(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = base;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) & MASK;
    e >>= 1n;
    if (e > 0n) b = (b * b) & MASK;
  }
  return result;
}

function byteLength(x: bigint): number {
  return x === 0n ? 0 : (x.toString(16).length + 1) >> 1;
}

function addressKey(x: bigint): string {
  const s = (x & 0xffffffffffffffffffffffffffffffffffffffffn).toString(16);
  return s.length === 40 ? s : '0'.repeat(40 - s.length) + s;
}

function wordOf(bytes: Uint8Array, start: number): bigint {
  if (start + 32 <= bytes.length) {
    // A whole word: its first two bytes, then five 48-bit limbs, each exact as a double (no string,
    // no view object, few bigint steps).
    let w = BigInt(((bytes[start] as number) << 8) | (bytes[start + 1] as number));
    for (let o = start + 2; o < start + 32; o += 6) {
      const limb =
        ((bytes[o] as number) * 0x10000 + (((bytes[o + 1] as number) << 8) | (bytes[o + 2] as number))) *
          0x1000000 +
        ((bytes[o + 3] as number) * 0x10000 + (((bytes[o + 4] as number) << 8) | (bytes[o + 5] as number)));
      w = (w << 48n) | BigInt(limb);
    }
    return w;
  }
  let s = '0x';
  for (let i = 0; i < 32; i++) {
    const b = bytes[start + i] ?? 0;
    s += b < 16 ? `0${b.toString(16)}` : b.toString(16);
  }
  return BigInt(s);
}

/** A frame's memory: grows in words, charged by the quadratic rule. */
class Memory {
  bytes = new Uint8Array(256);
  words = 0;
  view = new DataView(this.bytes.buffer);

  /** The gas to grow memory to cover [offset, offset + size); -1 when no gas could pay for it. */
  expansionCost(offset: bigint, size: bigint): number {
    if (size === 0n) return 0;
    const end = offset + size;
    if (end > 0xffffffffn) return -1;
    const words = Math.ceil(Number(end) / 32);
    if (words <= this.words) return 0;
    if (words > MAX_WORDS) return -1;
    const cost = (w: number) => 3 * w + Math.floor((w * w) / 512);
    return cost(words) - cost(this.words);
  }

  /** Grows to `end` bytes (rounded to words); the cost was charged by the caller. */
  grow(end: number): void {
    const words = Math.ceil(end / 32);
    if (words <= this.words) return;
    this.words = words;
    const size = words * 32;
    if (size > this.bytes.length) {
      let cap = this.bytes.length * 2;
      while (cap < size) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.bytes);
      this.bytes = next;
      this.view = new DataView(next.buffer);
    }
  }

  load(offset: number): bigint {
    const v = this.view;
    return (
      (v.getBigUint64(offset) << 192n) |
      (v.getBigUint64(offset + 8) << 128n) |
      (v.getBigUint64(offset + 16) << 64n) |
      v.getBigUint64(offset + 24)
    );
  }

  store(offset: number, value: bigint): void {
    const v = this.view;
    v.setBigUint64(offset, value >> 192n);
    v.setBigUint64(offset + 8, BigInt.asUintN(64, value >> 128n));
    v.setBigUint64(offset + 16, BigInt.asUintN(64, value >> 64n));
    v.setBigUint64(offset + 24, BigInt.asUintN(64, value));
  }

  /** Copies `size` bytes of `src` from `srcOffset` (zero past its end) to `offset`. */
  write(offset: number, src: Uint8Array, srcOffset: number, size: number): void {
    if (size === 0) return;
    const avail = Math.max(0, Math.min(size, src.length - srcOffset));
    if (avail > 0) this.bytes.set(src.subarray(srcOffset, srcOffset + avail), offset);
    if (avail < size) this.bytes.fill(0, offset + avail, offset + size);
  }

  slice(offset: number, size: number): Uint8Array {
    return size === 0 ? EMPTY : this.bytes.slice(offset, offset + size);
  }

  /** Empty again, for the next frame: only the words used were ever written. */
  reset(): void {
    if (this.bytes.length > MAX_POOLED_MEMORY) {
      this.bytes = new Uint8Array(256);
      this.view = new DataView(this.bytes.buffer);
    } else if (this.words > 0) this.bytes.fill(0, 0, this.words * 32);
    this.words = 0;
  }
}

/**
 * Stacks and memories of finished frames, reused by the next ones: a fresh 1024-slot stack and a
 * memory buffer per frame cost more than a short view call's opcodes. Frames nest, so the pool holds
 * at most as many as were open at once, bounded by `MAX_POOLED_FRAMES`. A reused stack may hold old
 * values above its pointer; nothing reads there (each opcode checks its inputs against `sp`).
 */
const MAX_POOLED_FRAMES = 32;
/** A memory grown beyond this many bytes is not kept for reuse. */
const MAX_POOLED_MEMORY = 64 * 1024;
const stackPool: bigint[][] = [];
const memoryPool: Memory[] = [];

/**
 * Runs one message frame (the caller has moved the value and opened a journal checkpoint; it
 * reverts that checkpoint unless the result is a success).
 */
export function execute(env: CallEnv, msg: Message): FrameResult {
  const code = msg.code;
  const info = codeInfo(code);
  const world = env.world;
  const stack: bigint[] = stackPool.pop() ?? new Array(1024);
  let sp = 0;
  const mem = memoryPool.pop() ?? new Memory();
  let gas = msg.gas;
  let pc = 0;
  let returnData: Uint8Array = EMPTY;
  const self = msg.address;
  const valid = env.valid;
  const fee = env.fee;

  const useMemory = (offset: bigint, size: bigint): void => {
    if (size === 0n) return;
    const cost = mem.expansionCost(offset, size);
    if (cost < 0) throw new Halt(OOG);
    if (cost > 0) {
      gas -= cost;
      if (gas < 0) throw new Halt(OOG);
      mem.grow(Number(offset + size));
    }
  };
  const charge = (amount: number): void => {
    gas -= amount;
    if (gas < 0) throw new Halt(OOG);
  };
  /** EIP-2929 account access: 100 warm, 2600 cold. */
  const accessAccount = (key: string): void => {
    charge(world.touchAddress(key) ? 100 : 2600);
  };
  const copyCost = (size: bigint): number => {
    if (size > 0xffffffffn) throw new Halt(OOG);
    return 3 * Math.ceil(Number(size) / 32);
  };
  const rejectDelegated = (c: Uint8Array): void => {
    if (env.delegation && c.length >= 3 && c[0] === 0xef && c[1] === 0x01 && c[2] === 0x00) {
      throw new Fallback('delegated code');
    }
  };

  try {
    for (;;) {
      const op = pc < code.length ? code[pc] : 0x00;
      if (valid[op] === 0) {
        throw new Halt(`Invalid opcode: 0x${op.toString(16).padStart(2, '0')}`);
      }
      if (DYNAMIC[op] === 1 && sp < IN[op]) throw new Halt('Stack underflow');
      gas -= fee[op];
      if (gas < 0) throw new Halt(OOG);
      if (sp < IN[op]) throw new Halt('Stack underflow');
      if (sp - IN[op] + OUT[op] > 1024) throw new Halt('Stack overflow');
      pc++;
      switch (op) {
        case 0x00:
          return { outcome: Outcome.Success, gasLeft: gas, output: EMPTY };
        case 0x01: {
          const a = stack[--sp];
          stack[sp - 1] = (a + stack[sp - 1]) & MASK;
          break;
        }
        case 0x02: {
          const a = stack[--sp];
          stack[sp - 1] = (a * stack[sp - 1]) & MASK;
          break;
        }
        case 0x03: {
          const a = stack[--sp];
          stack[sp - 1] = (a - stack[sp - 1]) & MASK;
          break;
        }
        case 0x04: {
          const a = stack[--sp];
          const b = stack[sp - 1];
          stack[sp - 1] = b === 0n ? 0n : a / b;
          break;
        }
        case 0x05: {
          const a = toSigned(stack[--sp]);
          const b = toSigned(stack[sp - 1]);
          stack[sp - 1] = b === 0n ? 0n : (a / b) & MASK;
          break;
        }
        case 0x06: {
          const a = stack[--sp];
          const b = stack[sp - 1];
          stack[sp - 1] = b === 0n ? 0n : a % b;
          break;
        }
        case 0x07: {
          const a = toSigned(stack[--sp]);
          const b = toSigned(stack[sp - 1]);
          stack[sp - 1] = b === 0n ? 0n : (a % b) & MASK;
          break;
        }
        case 0x08: {
          const a = stack[--sp];
          const b = stack[--sp];
          const n = stack[sp - 1];
          stack[sp - 1] = n === 0n ? 0n : (a + b) % n;
          break;
        }
        case 0x09: {
          const a = stack[--sp];
          const b = stack[--sp];
          const n = stack[sp - 1];
          stack[sp - 1] = n === 0n ? 0n : (a * b) % n;
          break;
        }
        case 0x0a: {
          const base = stack[--sp];
          const exponent = stack[sp - 1];
          charge(50 * byteLength(exponent));
          stack[sp - 1] = exponent === 0n ? 1n : base === 0n ? 0n : expMod(base, exponent);
          break;
        }
        case 0x0b: {
          const b = stack[--sp];
          const x = stack[sp - 1];
          if (b < 31n) {
            const bit = b * 8n + 7n;
            const low = (1n << bit) - 1n;
            stack[sp - 1] = (x >> bit) & 1n ? (x | ~low) & MASK : x & low;
          }
          break;
        }
        case 0x10: {
          const a = stack[--sp];
          stack[sp - 1] = a < stack[sp - 1] ? 1n : 0n;
          break;
        }
        case 0x11: {
          const a = stack[--sp];
          stack[sp - 1] = a > stack[sp - 1] ? 1n : 0n;
          break;
        }
        case 0x12: {
          const a = toSigned(stack[--sp]);
          stack[sp - 1] = a < toSigned(stack[sp - 1]) ? 1n : 0n;
          break;
        }
        case 0x13: {
          const a = toSigned(stack[--sp]);
          stack[sp - 1] = a > toSigned(stack[sp - 1]) ? 1n : 0n;
          break;
        }
        case 0x14: {
          const a = stack[--sp];
          stack[sp - 1] = a === stack[sp - 1] ? 1n : 0n;
          break;
        }
        case 0x15:
          stack[sp - 1] = stack[sp - 1] === 0n ? 1n : 0n;
          break;
        case 0x16: {
          const a = stack[--sp];
          stack[sp - 1] = a & stack[sp - 1];
          break;
        }
        case 0x17: {
          const a = stack[--sp];
          stack[sp - 1] = a | stack[sp - 1];
          break;
        }
        case 0x18: {
          const a = stack[--sp];
          stack[sp - 1] = a ^ stack[sp - 1];
          break;
        }
        case 0x19:
          stack[sp - 1] = MASK ^ stack[sp - 1];
          break;
        case 0x1a: {
          const i = stack[--sp];
          const x = stack[sp - 1];
          stack[sp - 1] = i < 32n ? (x >> (8n * (31n - i))) & 0xffn : 0n;
          break;
        }
        case 0x1b: {
          const shift = stack[--sp];
          const v = stack[sp - 1];
          stack[sp - 1] = shift >= 256n ? 0n : (v << shift) & MASK;
          break;
        }
        case 0x1c: {
          const shift = stack[--sp];
          const v = stack[sp - 1];
          stack[sp - 1] = shift >= 256n ? 0n : v >> shift;
          break;
        }
        case 0x1d: {
          const shift = stack[--sp];
          const v = toSigned(stack[sp - 1]);
          stack[sp - 1] = (shift >= 256n ? (v < 0n ? -1n : 0n) : v >> shift) & MASK;
          break;
        }
        case 0x1e: {
          const x = stack[sp - 1];
          stack[sp - 1] = x === 0n ? 256n : BigInt(256 - x.toString(2).length);
          break;
        }
        case 0x20: {
          const offset = stack[--sp];
          const size = stack[sp - 1];
          charge(6 * Math.ceil(Number(size > 0xffffffffn ? 0xffffffffn : size) / 32));
          useMemory(offset, size);
          const n = Number(size);
          stack[sp - 1] = bytesToBigInt(
            keccak256(n === 0 ? EMPTY : mem.bytes.subarray(Number(offset), Number(offset) + n)),
          );
          break;
        }
        case 0x30:
          stack[sp++] = BigInt(`0x${self}`);
          break;
        case 0x31: {
          const key = addressKey(stack[sp - 1]);
          accessAccount(key);
          stack[sp - 1] = world.balance(key);
          break;
        }
        case 0x32:
          stack[sp++] = env.origin;
          break;
        case 0x33:
          stack[sp++] = msg.caller;
          break;
        case 0x34:
          stack[sp++] = msg.value;
          break;
        case 0x35: {
          const i = stack[sp - 1];
          stack[sp - 1] = i >= BigInt(msg.data.length) ? 0n : wordOf(msg.data, Number(i));
          break;
        }
        case 0x36:
          stack[sp++] = BigInt(msg.data.length);
          break;
        case 0x37:
        case 0x39:
        case 0x3e: {
          const memOffset = stack[--sp];
          const srcOffset = stack[--sp];
          const size = stack[--sp];
          const src = op === 0x37 ? msg.data : op === 0x39 ? code : returnData;
          if (op === 0x3e && srcOffset + size > BigInt(returnData.length)) {
            // Reported as the EVM library reports it, so both paths answer alike.
            throw new Halt(OOG);
          }
          charge(copyCost(size));
          useMemory(memOffset, size);
          if (size > 0n) {
            const from = srcOffset > BigInt(src.length) ? src.length : Number(srcOffset);
            mem.write(Number(memOffset), src, from, Number(size));
          }
          break;
        }
        case 0x38:
          stack[sp++] = BigInt(code.length);
          break;
        case 0x3a:
          stack[sp++] = env.gasPrice;
          break;
        case 0x3b: {
          const key = addressKey(stack[sp - 1]);
          accessAccount(key);
          const c = world.code(key);
          rejectDelegated(c);
          stack[sp - 1] = BigInt(c.length);
          break;
        }
        case 0x3c: {
          const key = addressKey(stack[--sp]);
          const memOffset = stack[--sp];
          const srcOffset = stack[--sp];
          const size = stack[--sp];
          charge(copyCost(size));
          useMemory(memOffset, size);
          accessAccount(key);
          const c = world.code(key);
          rejectDelegated(c);
          if (size > 0n) {
            const from = srcOffset > BigInt(c.length) ? c.length : Number(srcOffset);
            mem.write(Number(memOffset), c, from, Number(size));
          }
          break;
        }
        case 0x3d:
          stack[sp++] = BigInt(returnData.length);
          break;
        case 0x3f: {
          const key = addressKey(stack[sp - 1]);
          accessAccount(key);
          rejectDelegated(world.code(key));
          stack[sp - 1] = world.codeHash(key);
          break;
        }
        case 0x40: {
          const n = stack[sp - 1];
          stack[sp - 1] = n >= env.number || n + 256n < env.number ? 0n : env.blockHash(n);
          break;
        }
        case 0x41:
          stack[sp++] = env.coinbase;
          break;
        case 0x42:
          stack[sp++] = env.timestamp;
          break;
        case 0x43:
          stack[sp++] = env.number;
          break;
        case 0x44:
          stack[sp++] = env.prevRandao;
          break;
        case 0x45:
          stack[sp++] = env.blockGasLimit;
          break;
        case 0x46:
          stack[sp++] = env.chainId;
          break;
        case 0x47:
          stack[sp++] = world.balance(self);
          break;
        case 0x48:
          stack[sp++] = env.baseFee;
          break;
        case 0x49: {
          const i = stack[sp - 1];
          stack[sp - 1] = i < BigInt(env.blobHashes.length) ? env.blobHashes[Number(i)] : 0n;
          break;
        }
        case 0x4a:
          stack[sp++] = env.blobBaseFee;
          break;
        case 0x50:
          sp--;
          break;
        case 0x51: {
          const offset = stack[sp - 1];
          useMemory(offset, 32n);
          stack[sp - 1] = mem.load(Number(offset));
          break;
        }
        case 0x52: {
          const offset = stack[--sp];
          const value = stack[--sp];
          useMemory(offset, 32n);
          mem.store(Number(offset), value);
          break;
        }
        case 0x53: {
          const offset = stack[--sp];
          const value = stack[--sp];
          useMemory(offset, 1n);
          mem.bytes[Number(offset)] = Number(value & 0xffn);
          break;
        }
        case 0x54: {
          const slotKey = slotKeyOf(stack[sp - 1]);
          const id = self + slotKey;
          charge(world.touchSlot(self, slotKey, id) ? 100 : 2100);
          stack[sp - 1] = world.sload(self, slotKey, id);
          break;
        }
        case 0x55: {
          if (msg.isStatic) throw new Halt('static state change');
          const slotKey = slotKeyOf(stack[--sp]);
          const value = stack[--sp];
          // EIP-2200: an SSTORE needs more than the call stipend left.
          if (gas <= 2300) throw new Halt(OOG);
          const id = self + slotKey;
          let cost = world.touchSlot(self, slotKey, id) ? 0 : 2100;
          const current = world.sload(self, slotKey, id);
          const original = world.original(self, slotKey, id);
          const clear = env.sstoreClearRefund;
          if (current === value) {
            cost += 100;
          } else if (original === current) {
            cost += original === 0n ? 20000 : 2900;
            if (value === 0n) world.addRefund(clear);
          } else {
            cost += 100;
            if (original !== 0n) {
              if (current === 0n) world.addRefund(-clear);
              else if (value === 0n) world.addRefund(clear);
            }
            if (original === value) world.addRefund(original === 0n ? 19900 : 2800);
          }
          charge(cost);
          world.sstore(self, slotKey, value, id);
          break;
        }
        case 0x56: {
          const dest = stack[--sp];
          if (dest >= BigInt(code.length) || info.jumpdests[Number(dest)] !== 1) {
            throw new Halt('Invalid jump destination');
          }
          pc = Number(dest);
          break;
        }
        case 0x57: {
          const dest = stack[--sp];
          const cond = stack[--sp];
          if (cond !== 0n) {
            if (dest >= BigInt(code.length) || info.jumpdests[Number(dest)] !== 1) {
              throw new Halt('Invalid jump destination');
            }
            pc = Number(dest);
          }
          break;
        }
        case 0x58:
          stack[sp++] = BigInt(pc - 1);
          break;
        case 0x59:
          stack[sp++] = BigInt(mem.words * 32);
          break;
        case 0x5a:
          stack[sp++] = BigInt(gas);
          break;
        case 0x5b:
          break;
        case 0x5c:
          stack[sp - 1] = world.tload(self, slotKeyOf(stack[sp - 1]));
          break;
        case 0x5d: {
          if (msg.isStatic) throw new Halt('static state change');
          const slotKey = slotKeyOf(stack[--sp]);
          world.tstore(self, slotKey, stack[--sp]);
          break;
        }
        case 0x5e: {
          const dst = stack[--sp];
          const src = stack[--sp];
          const size = stack[--sp];
          charge(copyCost(size));
          if (size > 0n) {
            // biome-ignore lint/complexity/useMathMinMax: bigint operands
            const end = src > dst ? src : dst;
            useMemory(end, size);
            const s = Number(src);
            mem.bytes.copyWithin(Number(dst), s, s + Number(size));
          }
          break;
        }
        case 0x5f:
          stack[sp++] = 0n;
          break;
        case 0xa0:
        case 0xa1:
        case 0xa2:
        case 0xa3:
        case 0xa4: {
          if (msg.isStatic) throw new Halt('static state change');
          const topics = op - 0xa0;
          const offset = stack[--sp];
          const size = stack[--sp];
          if (size > 0xffffffffn) throw new Halt(OOG);
          charge(375 * topics + 8 * Number(size));
          useMemory(offset, size);
          if (world.logs !== undefined) {
            const t: bigint[] = [];
            for (let i = 1; i <= topics; i++) t.push(stack[sp - i]);
            world.log(self, t, mem.slice(Number(offset), Number(size)));
          }
          sp -= topics;
          break;
        }
        case 0xf0:
        case 0xf5: {
          const rules = env.lifecycle;
          if (rules === undefined) throw new Fallback('contract creation');
          if (msg.isStatic) throw new Halt('static state change');
          const value = stack[--sp];
          const offset = stack[--sp];
          const size = stack[--sp];
          const salt = op === 0xf5 ? stack[--sp] : 0n;
          if (size > 0xffffffffn) throw new Halt(OOG);
          const words = Math.ceil(Number(size) / 32);
          if (rules.maxInitCodeSize > 0) charge(rules.initCodeWordGas * words);
          if (op === 0xf5) charge(6 * words);
          useMemory(offset, size);
          if (rules.maxInitCodeSize > 0 && size > BigInt(rules.maxInitCodeSize)) throw new Halt(OOG);
          returnData = EMPTY;
          const initcode = mem.slice(Number(offset), Number(size));
          const childGas = gas - Math.floor(gas / 64);
          // Too deep, too poor or out of nonces: nothing happens and no gas goes to the child.
          const nonce = world.nonce(self);
          if (msg.depth + 1 > MAX_DEPTH || value > world.balance(self) || nonce >= MAX_NONCE) {
            stack[sp++] = 0n;
            break;
          }
          const target = op === 0xf0 ? createAddress(self, nonce) : create2Address(self, salt, initcode);
          world.setNonce(self, nonce + 1n);
          world.touch(self);
          world.touchAddress(target);
          gas -= childGas;
          const result = create(env, self, target, value, initcode, childGas, msg.depth + 1);
          gas += result.gasLeft;
          if (result.outcome === Outcome.Revert) returnData = result.output;
          stack[sp++] = result.outcome === Outcome.Success ? BigInt(`0x${target}`) : 0n;
          break;
        }
        case 0xff: {
          const rules = env.lifecycle;
          if (rules === undefined) throw new Fallback('SELFDESTRUCT');
          if (msg.isStatic) throw new Halt('static state change');
          const beneficiary = addressKey(stack[--sp]);
          const balance = world.balance(self);
          let cost = 0;
          if (balance > 0n && world.isDead(beneficiary)) cost += 25000;
          if (!world.touchAddress(beneficiary)) cost += 2600;
          charge(cost);
          if (world.markSelfdestruct(self, beneficiary) && rules.selfdestructRefund !== 0) {
            world.addRefund(rules.selfdestructRefund);
          }
          if (beneficiary !== self) {
            world.setBalance(beneficiary, world.balance(beneficiary) + balance);
            world.touch(beneficiary);
          }
          // EIP-6780: an older contract only hands its balance over (none when it names itself).
          if (!rules.eip6780 || world.created.has(self) || beneficiary !== self) world.setBalance(self, 0n);
          return { outcome: Outcome.Success, gasLeft: gas, output: EMPTY };
        }
        case 0xf1:
        case 0xf2:
        case 0xf4:
        case 0xfa: {
          const requested = stack[--sp];
          const target = stack[--sp];
          const value = op === 0xf1 || op === 0xf2 ? stack[--sp] : 0n;
          const inOffset = stack[--sp];
          const inSize = stack[--sp];
          const outOffset = stack[--sp];
          const outSize = stack[--sp];
          if (op === 0xf1 && msg.isStatic && value !== 0n) throw new Halt('static state change');
          const key = addressKey(target);
          // One expansion covers both regions: charge for the one that ends further (an end out of
          // range is the further one, and is out of gas).
          const inEnd = inSize === 0n ? 0n : inOffset + inSize;
          const outEnd = outSize === 0n ? 0n : outOffset + outSize;
          if (inEnd > outEnd) useMemory(inOffset, inSize);
          else useMemory(outOffset, outSize);
          accessAccount(key);
          const targetCode = env.isPrecompile(key) ? EMPTY : world.code(key);
          rejectDelegated(targetCode);
          if (value !== 0n) {
            charge(9000);
            if (op === 0xf1 && world.isDead(key)) charge(25000);
          }
          const cap = gas - Math.floor(gas / 64);
          let callGas = requested > BigInt(cap) ? cap : Number(requested);
          gas -= callGas;
          if (value !== 0n) callGas += 2300;
          const result = call(
            env,
            msg,
            op,
            key,
            targetCode,
            value,
            callGas,
            mem.slice(Number(inOffset), Number(inSize)),
          );
          gas += result.gasLeft;
          returnData = result.output;
          if (outSize > 0n) {
            const n = Math.min(Number(outSize), returnData.length);
            if (n > 0) mem.bytes.set(returnData.subarray(0, n), Number(outOffset));
          }
          stack[sp++] = result.outcome === Outcome.Success ? 1n : 0n;
          break;
        }
        case 0xf3:
        case 0xfd: {
          const offset = stack[--sp];
          const size = stack[--sp];
          useMemory(offset, size);
          const output = mem.slice(Number(offset), Number(size));
          return { outcome: op === 0xf3 ? Outcome.Success : Outcome.Revert, gasLeft: gas, output };
        }
        case 0xfe:
          throw new Halt('Invalid opcode: 0xfe');
        default: {
          if (op >= 0x60 && op <= 0x7f) {
            let v = info.pushes[pc];
            if (v === undefined) {
              v = readImmediate(code, pc, op - 0x5f);
              info.pushes[pc] = v;
            }
            stack[sp++] = v;
            pc += op - 0x5f;
          } else if (op >= 0x80 && op <= 0x8f) {
            stack[sp] = stack[sp - (op - 0x7f)];
            sp++;
          } else if (op >= 0x90 && op <= 0x9f) {
            const j = sp - 1 - (op - 0x8f);
            const t = stack[sp - 1];
            stack[sp - 1] = stack[j];
            stack[j] = t;
          } else {
            // An opcode this fork has that the interpreter does not run.
            throw new Fallback(`opcode 0x${op.toString(16)}`);
          }
        }
      }
    }
  } catch (err) {
    if (err instanceof Halt) return { outcome: Outcome.Halt, gasLeft: 0, output: EMPTY, error: err.reason };
    throw err;
  } finally {
    if (stackPool.length < MAX_POOLED_FRAMES) {
      mem.reset();
      stackPool.push(stack);
      memoryPool.push(mem);
    }
  }
}

/** CALL, CALLCODE, DELEGATECALL and STATICCALL once their gas is settled. */
function call(
  env: CallEnv,
  parent: Message,
  op: number,
  key: string,
  targetCode: Uint8Array,
  value: bigint,
  gas: number,
  data: Uint8Array,
): FrameResult {
  const world = env.world;
  // Too deep, or too poor to send the value: the call fails and its gas comes back.
  if (parent.depth + 1 > MAX_DEPTH) return { outcome: Outcome.Halt, gasLeft: gas, output: EMPTY };
  if ((op === 0xf1 || op === 0xf2) && value > world.balance(parent.address)) {
    return { outcome: Outcome.Halt, gasLeft: gas, output: EMPTY };
  }
  const mark = world.checkpoint();
  // The message touches its recipient (CALLCODE's is the caller itself, DELEGATECALL has none).
  if (op === 0xf1 || op === 0xfa) world.touch(key);
  if (op === 0xf1 && value !== 0n && key !== parent.address) {
    world.setBalance(parent.address, world.balance(parent.address) - value);
    world.setBalance(key, world.balance(key) + value);
  }
  let result: FrameResult;
  if (env.isPrecompile(key)) {
    const r = env.runPrecompile(key, data, gas);
    result = r.ok
      ? { outcome: Outcome.Success, gasLeft: gas - r.gasUsed, output: r.output }
      : { outcome: Outcome.Halt, gasLeft: 0, output: EMPTY };
  } else if (targetCode.length === 0) {
    result = { outcome: Outcome.Success, gasLeft: gas, output: EMPTY };
  } else {
    const child: Message = {
      code: targetCode,
      address: op === 0xf1 || op === 0xfa ? key : parent.address,
      caller: op === 0xf4 ? parent.caller : BigInt(`0x${parent.address}`),
      value: op === 0xf4 ? parent.value : value,
      data,
      gas,
      isStatic: parent.isStatic || op === 0xfa,
      depth: parent.depth + 1,
    };
    result = execute(env, child);
  }
  if (result.outcome !== Outcome.Success) world.revert(mark);
  return result;
}

/**
 * A new contract at `address` from `caller`'s `initcode` with `value`, once the creating frame has
 * bumped its nonce and warmed the address (the caller opens no checkpoint: this one reverts itself).
 * The output is the deployed code on success, the revert data on a revert.
 */
export function create(
  env: CallEnv,
  caller: string,
  address: string,
  value: bigint,
  initcode: Uint8Array,
  gas: number,
  depth: number,
): FrameResult {
  const world = env.world;
  const rules = env.lifecycle as LifecycleRules;
  const mark = world.checkpoint();
  if (world.collides(address))
    return { outcome: Outcome.Halt, gasLeft: 0, output: EMPTY, error: 'Collision' };
  world.markCreated(address);
  world.setNonce(address, 1n);
  world.touch(address);
  if (value !== 0n) {
    world.setBalance(caller, world.balance(caller) - value);
    world.setBalance(address, world.balance(address) + value);
  }
  let result: FrameResult;
  if (initcode.length === 0) {
    result = { outcome: Outcome.Success, gasLeft: gas, output: EMPTY };
  } else {
    result = execute(env, {
      code: initcode,
      address,
      caller: BigInt(`0x${caller}`),
      value,
      data: EMPTY,
      gas,
      isStatic: false,
      depth,
    });
    if (result.outcome === Outcome.Success) {
      const code = result.output;
      const deposit = rules.createDataGas * code.length;
      if (
        code.length > rules.maxCodeSize ||
        deposit > result.gasLeft ||
        (rules.rejectEf && code.length > 0 && code[0] === 0xef)
      ) {
        result = { outcome: Outcome.Halt, gasLeft: 0, output: EMPTY, error: OOG };
      } else {
        if (code.length > 0) world.setCode(address, code);
        result = { outcome: Outcome.Success, gasLeft: result.gasLeft - deposit, output: code };
      }
    }
  }
  if (result.outcome !== Outcome.Success) world.revert(mark);
  return result;
}

/** The address CREATE gives: keccak256(rlp([sender, nonce]))[12:]. */
export function createAddress(sender: string, nonce: bigint): string {
  const n = nonce === 0n ? new Uint8Array(0) : hexToBytes(nonce.toString(16));
  return bytesToHexKey(keccak256(RLP.encode([hexToBytes(sender), n])).subarray(12));
}

/** The address CREATE2 gives: keccak256(0xff ++ sender ++ salt ++ keccak256(initcode))[12:]. */
function create2Address(sender: string, salt: bigint, initcode: Uint8Array): string {
  const buf = new Uint8Array(85);
  buf[0] = 0xff;
  buf.set(hexToBytes(sender), 1);
  buf.set(hexToBytes(salt.toString(16).padStart(64, '0')), 21);
  buf.set(keccak256(initcode), 53);
  return bytesToHexKey(keccak256(buf).subarray(12));
}

function hexToBytes(hex: string): Uint8Array {
  const b = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** Runs a transaction's top-level message call (value already moved by the caller). */
export function executeTop(env: CallEnv, msg: Message, to: string): FrameResult {
  if (env.isPrecompile(to)) {
    const r = env.runPrecompile(to, msg.data, msg.gas);
    return r.ok
      ? { outcome: Outcome.Success, gasLeft: msg.gas - r.gasUsed, output: r.output }
      : { outcome: Outcome.Halt, gasLeft: 0, output: EMPTY, error: r.error === 'out of gas' ? OOG : r.error };
  }
  if (msg.code.length === 0) return { outcome: Outcome.Success, gasLeft: msg.gas, output: EMPTY };
  if (
    env.delegation &&
    msg.code.length >= 3 &&
    msg.code[0] === 0xef &&
    msg.code[1] === 0x01 &&
    msg.code[2] === 0x00
  ) {
    throw new Fallback('delegated code');
  }
  return execute(env, msg);
}
