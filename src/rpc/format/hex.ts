/**
 * Hex at the edge: the few conversions every formatter needs, written for the hot path. Output is always
 * lowercase with a `0x` prefix, as Besu writes it.
 */

const BYTE_HEX: string[] = [];
for (let i = 0; i < 256; i++) BYTE_HEX.push(i.toString(16).padStart(2, '0'));

// Below this size a table walk beats the round trip through Buffer's native encoder.
const NATIVE_THRESHOLD = 32;

/** Minimal hex quantity: `0x0` for zero, no leading zeros otherwise. Negative values are refused. */
export function quantity(value: bigint | number): string {
  if (typeof value === 'number') {
    // toString(16) of an integral double is exact, even above 2^53.
    if (!(value >= 0) || !Number.isInteger(value))
      throw new RangeError(`not a non-negative integer: ${value}`);
    return `0x${value.toString(16)}`;
  }
  if (value < 0n) throw new RangeError(`negative quantity: ${value}`);
  return `0x${value.toString(16)}`;
}

/** `0x` + two lowercase hex digits per byte; `0x` for no bytes. */
export function bytes(data: Uint8Array): string {
  const n = data.length;
  if (n > NATIVE_THRESHOLD) {
    return `0x${Buffer.from(data.buffer, data.byteOffset, n).toString('hex')}`;
  }
  let out = '0x';
  for (let i = 0; i < n; i++) out += BYTE_HEX[data[i] as number];
  return out;
}

/** Two lowercase hex digits per byte value, as one 16-bit number of their character codes. */
const HEX_CODES = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  const pair = BYTE_HEX[i] as string;
  HEX_CODES[i] = (pair.charCodeAt(0) << 8) | pair.charCodeAt(1);
}
/** Where `quotedBytes` writes its characters (used synchronously, so one per process suffices). */
const QUOTED_SCRATCH = Buffer.allocUnsafe(4096);

/**
 * `bytes(data)` as a JSON string literal (`"0x…"`), built in one pass in a scratch buffer and read
 * out as one string: no chain of partial strings to collect. Larger data goes through Buffer's encoder.
 */
export function quotedBytes(data: Uint8Array): string {
  const length = data.length * 2 + 4;
  if (length > QUOTED_SCRATCH.length) return `"${bytes(data)}"`;
  const out = QUOTED_SCRATCH;
  out[0] = 0x22;
  out[1] = 0x30;
  out[2] = 0x78;
  let j = 3;
  for (let i = 0; i < data.length; i++) {
    const pair = HEX_CODES[data[i] as number] as number;
    out[j++] = pair >> 8;
    out[j++] = pair & 0xff;
  }
  out[j] = 0x22;
  return out.toString('latin1', 0, length);
}

/** Bytes without the `0x` prefix (Besu writes a few fields this way, e.g. debug trace return values). */
export function bytesNoPrefix(data: Uint8Array): string {
  return bytes(data).slice(2);
}

const HEX_BODY = /^[0-9a-fA-F]*$/;

/**
 * Hex string (with or without `0x`) to bytes. Odd length or a non-hex character throws; use `lenient`
 * to left-pad an odd number of digits with one zero instead.
 */
export function hexToBytes(hex: string, lenient = false): Uint8Array {
  let body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (!HEX_BODY.test(body)) throw new SyntaxError(`invalid hex: ${hex}`);
  if (body.length & 1) {
    if (!lenient) throw new SyntaxError(`odd-length hex: ${hex}`);
    body = `0${body}`;
  }
  const buf = Buffer.from(body, 'hex');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}

/** A 20-byte address as `0x` + 40 lowercase hex digits. Accepts bytes or a hex string. */
export function address(value: Uint8Array | string): string {
  if (typeof value === 'string') {
    const s = value.toLowerCase();
    return s.startsWith('0x') ? s : `0x${s}`;
  }
  return bytes(value);
}

const ZEROS_64 = '0'.repeat(64);

/** Left-padded fixed-width hex of `size` bytes (default 32): storage values, hashes held as bigint. */
export function padded(value: bigint | Uint8Array, size = 32): string {
  const width = size * 2;
  let digits: string;
  if (typeof value === 'bigint') {
    if (value < 0n) throw new RangeError(`negative value: ${value}`);
    digits = value.toString(16);
  } else {
    digits = bytes(value).slice(2);
  }
  if (digits.length > width) throw new RangeError(`value does not fit in ${size} bytes`);
  if (digits.length === width) return `0x${digits}`;
  const pad = width - digits.length;
  return `0x${pad <= 64 ? ZEROS_64.slice(0, pad) : '0'.repeat(pad)}${digits}`;
}

/** Hex string with or without `0x` to bigint; `0x` alone is zero. Throws on anything else. */
export function hexToBigInt(hex: string): bigint {
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (body.length === 0) return 0n;
  if (!HEX_BODY.test(body)) throw new SyntaxError(`invalid hex: ${hex}`);
  return BigInt(`0x${body}`);
}
