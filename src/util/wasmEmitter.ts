/**
 * A small WebAssembly binary emitter for the modules Alder assembles at start-up from an algorithm's
 * definition (the Ethash kernel, Keccak-256): value types, the opcodes they use, LEB128 integers, a
 * function body builder and the section and name encodings.
 */

// Value types and opcodes of the WebAssembly binary format.
export const I32 = 0x7f;
export const I64 = 0x7e;
export const V128 = 0x7b;
export const op = {
  loop: 0x03,
  end: 0x0b,
  brIf: 0x0d,
  call: 0x10,
  get: 0x20,
  set: 0x21,
  tee: 0x22,
  i32Load: 0x28,
  i64Load: 0x29,
  i32Store: 0x36,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32RemU: 0x70,
  i32And: 0x71,
  i32Xor: 0x73,
  i32Shl: 0x74,
  i64And: 0x83,
  i64Xor: 0x85,
  i64Rotl: 0x89,
  simd: 0xfd,
} as const;
// SIMD sub-opcodes (after the 0xfd prefix, LEB128-encoded).
export const simd = { load: 0x00, store: 0x0b, i32x4Splat: 0x11, xor: 0x51, i32x4Mul: 0xb5 } as const;

export function uleb(v: number, out: number[]): void {
  let x = v >>> 0;
  do {
    const byte = x & 0x7f;
    x >>>= 7;
    out.push(x === 0 ? byte : byte | 0x80);
  } while (x !== 0);
}

export function sleb(v: bigint, out: number[]): void {
  let x = v;
  for (;;) {
    const byte = Number(x & 0x7fn);
    x >>= 7n;
    const done = (x === 0n && (byte & 0x40) === 0) || (x === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return;
  }
}

/** One function body under construction: locals after the parameters, then instructions. */
export class Fn {
  readonly code: number[] = [];
  private readonly locals: number[] = [];

  constructor(readonly params: number) {}

  local(type: number): number {
    this.locals.push(type);
    return this.params + this.locals.length - 1;
  }

  emit(...bytes: number[]): this {
    this.code.push(...bytes);
    return this;
  }
  get(i: number): this {
    return this.indexed(op.get, i);
  }
  set(i: number): this {
    return this.indexed(op.set, i);
  }
  tee(i: number): this {
    return this.indexed(op.tee, i);
  }
  i32(v: number): this {
    this.code.push(op.i32Const);
    sleb(BigInt(v | 0), this.code);
    return this;
  }
  i64(v: bigint): this {
    this.code.push(op.i64Const);
    sleb(BigInt.asIntN(64, v), this.code);
    return this;
  }
  /** A memory access with a constant byte offset; `align` is log2 of the alignment hint. */
  mem(opcode: number, align: number, offset: number): this {
    this.code.push(opcode);
    uleb(align, this.code);
    uleb(offset, this.code);
    return this;
  }
  v(sub: number): this {
    this.code.push(op.simd);
    uleb(sub, this.code);
    return this;
  }
  vmem(sub: number, offset: number): this {
    this.v(sub);
    uleb(4, this.code);
    uleb(offset, this.code);
    return this;
  }
  call(index: number): this {
    return this.indexed(op.call, index);
  }
  /** An instruction with one index immediate (a local or a function). */
  private indexed(opcode: number, index: number): this {
    this.code.push(opcode);
    uleb(index, this.code);
    return this;
  }
  /**
   * `for (counter = 0; counter < limit; counter++) body()` for a limit known to be at least 1;
   * `limit` pushes the bound.
   */
  loop(counter: number, limit: (f: Fn) => void, body: (f: Fn) => void): this {
    this.i32(0).set(counter);
    this.emit(op.loop, 0x40);
    body(this);
    this.get(counter).i32(1).emit(op.i32Add).tee(counter);
    limit(this);
    this.emit(op.i32LtU, op.brIf, 0);
    this.emit(op.end);
    return this;
  }

  encode(): number[] {
    const out: number[] = [];
    const groups: [number, number][] = [];
    for (const t of this.locals) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    uleb(groups.length, out);
    for (const [n, t] of groups) {
      uleb(n, out);
      out.push(t);
    }
    out.push(...this.code, op.end);
    const sized: number[] = [];
    uleb(out.length, sized);
    return sized.concat(out);
  }
}

export function section(id: number, body: number[]): number[] {
  const out = [id];
  uleb(body.length, out);
  return out.concat(body);
}

export function name(s: string): number[] {
  const out: number[] = [];
  uleb(s.length, out);
  for (const ch of s) out.push(ch.charCodeAt(0));
  return out;
}

/** A function of a module: its body (all parameters i32, no results) and the name it is exported as. */
export interface ModuleFunction {
  fn: Fn;
  export?: string;
}

/**
 * A module's bytes: the functions in order (a function's index is its position, for `call`), each
 * typed by its parameter count, and one memory imported as `e.m` with `memoryLimits` (the binary
 * format's limits: flag, minimum, maximum where the flag has one).
 */
export function assembleModule(functions: ModuleFunction[], memoryLimits: number[]): Uint8Array<ArrayBuffer> {
  const arities = [...new Set(functions.map((f) => f.fn.params))];
  const types: number[] = [];
  uleb(arities.length, types);
  for (const n of arities) types.push(0x60, n, ...new Array<number>(n).fill(I32), 0);
  const imports = [1, ...name('e'), ...name('m'), 0x02, ...memoryLimits];
  const funcs: number[] = [];
  uleb(functions.length, funcs);
  for (const f of functions) uleb(arities.indexOf(f.fn.params), funcs);
  const exported = functions.flatMap((f, i) => (f.export === undefined ? [] : [[f.export, i] as const]));
  const exportsSec: number[] = [];
  uleb(exported.length, exportsSec);
  for (const [label, index] of exported) {
    exportsSec.push(...name(label), 0);
    uleb(index, exportsSec);
  }
  const code: number[] = [];
  uleb(functions.length, code);
  for (const f of functions) code.push(...f.fn.encode());
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, types),
    ...section(2, imports),
    ...section(3, funcs),
    ...section(7, exportsSec),
    ...section(10, code),
  ]);
}
