/**
 * What the interpreter needs to know about a piece of code before running it, worked out once per
 * code object (code read from the state is shared between calls, so a warm contract is analysed
 * once): which offsets are valid jump destinations, and the values its PUSH instructions push.
 */

export interface CodeInfo {
  /** 1 at offsets holding a JUMPDEST that is not PUSH data. */
  jumpdests: Uint8Array;
  /** The value each PUSH1…PUSH32 at that offset pushes (filled lazily). */
  pushes: Array<bigint | undefined>;
}

const cache = new WeakMap<Uint8Array, CodeInfo>();

export function codeInfo(code: Uint8Array): CodeInfo {
  let info = cache.get(code);
  if (info !== undefined) return info;
  const jumpdests = new Uint8Array(code.length);
  for (let pc = 0; pc < code.length; pc++) {
    const op = code[pc];
    if (op === 0x5b) jumpdests[pc] = 1;
    else if (op >= 0x60 && op <= 0x7f) pc += op - 0x5f;
  }
  info = { jumpdests, pushes: new Array(code.length) };
  cache.set(code, info);
  return info;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The value of the `n`-byte immediate at `start` (zero-padded past the end of the code). */
export function readImmediate(code: Uint8Array, start: number, n: number): bigint {
  if (n <= 6) {
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + (code[start + i] ?? 0);
    return BigInt(v);
  }
  let s = '0x';
  for (let i = 0; i < n; i++) s += HEX[code[start + i] ?? 0];
  return BigInt(s);
}
