/**
 * A 256-bit EVM word as its 32 big-endian bytes (the low 256 bits of a larger value), written in four
 * 64-bit steps: the generic conversion goes through a hex string and a second padded copy, a cost paid
 * per log topic of every transaction a block executes.
 */
export function wordBytes(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt.asUintN(64, value >> 192n));
  view.setBigUint64(8, BigInt.asUintN(64, value >> 128n));
  view.setBigUint64(16, BigInt.asUintN(64, value >> 64n));
  view.setBigUint64(24, BigInt.asUintN(64, value));
  return out;
}
