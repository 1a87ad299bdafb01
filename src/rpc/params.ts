/**
 * Parameter decoders. Each accepts exactly what Besu's parameter classes accept (Jackson creators over
 * Tuweni/`Long.decode` parsing, quirks included) and throws `RpcError` with a -32602 message.
 *
 * Besu words the error after the parameter and the method, not after what went wrong, and uses the same
 * message for a missing and for a malformed parameter: pass the method's error as the last argument
 * (`param(params, 0, address, INVALID_ADDRESS_PARAMS)`). Each decoder has a default for when it is used alone.
 * A JSON `null` parameter counts as missing, as in Besu.
 */

import { ByteSlab } from '../util/byteSlab.js';
import {
  INVALID_ADDRESS_PARAMS,
  INVALID_BLOCK_PARAMS,
  INVALID_PARAM_COUNT,
  INVALID_PARAMS,
  RpcError,
  type RpcErrorSpec,
} from './errors.js';

export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized';

/**
 * A block reference. `earliest` stays a tag (it means block 0). A `number` may be negative: Besu parses
 * it as a signed 64-bit `Long.decode` value and leaves the range check to each method (eth_getBalance
 * answers -32602 `Invalid block number params`, eth_getBlockTransactionCountByNumber answers null).
 */
export type BlockParam =
  | { kind: 'tag'; tag: BlockTag }
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: string; requireCanonical: boolean };

/** A decoder: the raw JSON value to a typed value, or an `RpcError` with `error` (else its default). */
export interface Decoder<T> {
  (value: unknown, error?: RpcErrorSpec): T;
  readonly defaultError: RpcErrorSpec;
}

export function decoder<T>(defaultError: RpcErrorSpec, parse: (value: unknown) => T | undefined): Decoder<T> {
  const fn = (value: unknown, error: RpcErrorSpec = defaultError): T => {
    const out = value === undefined || value === null ? undefined : parse(value);
    if (out === undefined) throw new RpcError(error);
    return out;
  };
  return Object.assign(fn, { defaultError });
}

export const EMPTY_PARAMS: readonly unknown[] = Object.freeze([]);

/** Required parameter `index`: absent or null throws `error` (default: the decoder's). */
export function param<T>(
  params: readonly unknown[],
  index: number,
  decode: Decoder<T>,
  error?: RpcErrorSpec,
): T {
  return decode(params[index], error ?? decode.defaultError);
}

/** Optional parameter `index`: absent or null gives undefined; anything else must decode. */
export function optionalParam<T>(
  params: readonly unknown[],
  index: number,
  decode: Decoder<T>,
  error?: RpcErrorSpec,
): T | undefined {
  const value = params[index];
  return value === undefined || value === null ? undefined : decode(value, error ?? decode.defaultError);
}

/** Wraps a decoder so that absent/null gives undefined. */
export function optional<T>(decode: Decoder<T>): Decoder<T | undefined> {
  const fn = (value: unknown, error?: RpcErrorSpec): T | undefined =>
    value === undefined || value === null ? undefined : decode(value, error ?? decode.defaultError);
  return Object.assign(fn, { defaultError: decode.defaultError });
}

/** Methods that check arity (eth_sendRawTransaction, priv_getTransactionCount …) answer `Invalid number of params`. */
export function requireParamCount(
  params: readonly unknown[],
  count: number,
  error = INVALID_PARAM_COUNT,
): void {
  if (params.length !== count) throw new RpcError(error);
}

// --- number parsing as Java does it

const MIN_LONG = -(1n << 63n);
const MAX_LONG = (1n << 63n) - 1n;
const MAX_ULONG = (1n << 64n) - 1n;
const DEC = /^[0-9]+$/;
const OCT = /^[0-7]+$/;
const HEX = /^[0-9a-fA-F]+$/;
const HEX_OR_EMPTY = /^[0-9a-fA-F]*$/;

/**
 * `java.lang.Long.decode`: optional sign, then `0x`/`0X`/`#` for hex, a leading `0` for octal (`010` is
 * 8), decimal otherwise; signed 64-bit range. Undefined when Java would throw.
 */
export function javaLongDecode(text: string): bigint | undefined {
  // The usual form, `0x` and up to 13 digits (exact as a double, far inside the range): read
  // directly. Anything else, or a character that is not a digit, takes the general reading below.
  const n = text.length;
  if (n > 2 && n <= 15 && text.charCodeAt(0) === 0x30 && text.charCodeAt(1) === 0x78) {
    let v = 0;
    let i = 2;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      const d = c < 256 ? (NIBBLE[c] as number) : -1;
      if (d < 0) break;
      v = v * 16 + d;
    }
    if (i === n) return BigInt(v);
  }
  let i = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === 45 /* - */) {
    negative = true;
    i = 1;
  } else if (first === 43 /* + */) {
    i = 1;
  }
  let digits: string;
  let value: bigint;
  if (text.startsWith('0x', i) || text.startsWith('0X', i)) {
    digits = text.slice(i + 2);
    if (!HEX.test(digits)) return undefined;
    value = BigInt(`0x${digits}`);
  } else if (text.startsWith('#', i)) {
    digits = text.slice(i + 1);
    if (!HEX.test(digits)) return undefined;
    value = BigInt(`0x${digits}`);
  } else if (text.startsWith('0', i) && text.length > i + 1) {
    digits = text.slice(i + 1);
    if (!OCT.test(digits)) return undefined;
    value = BigInt(`0o${digits}`);
  } else {
    digits = text.slice(i);
    if (!DEC.test(digits)) return undefined;
    value = BigInt(digits);
  }
  if (negative) value = -value;
  return value < MIN_LONG || value > MAX_LONG ? undefined : value;
}

/** Tuweni's lenient hex: optional lowercase `0x`, odd length allowed (left-padded), at most `size` bytes. */
function lenientHex(text: string, size: number): string | undefined {
  const body = text.startsWith('0x') ? text.slice(2) : text;
  if (!HEX_OR_EMPTY.test(body)) return undefined;
  const width = size * 2;
  const even = body.length & 1 ? `0${body}` : body;
  if (even.length > width) return undefined;
  return `0x${even.padStart(width, '0').toLowerCase()}`;
}

/** Tuweni's strict hex: optional lowercase `0x`, even length. Returns the digits, lowercased. */
function strictHexDigits(text: string): string | undefined {
  const body = text.startsWith('0x') ? text.slice(2) : text;
  if (body.length & 1 || !HEX_OR_EMPTY.test(body)) return undefined;
  return body.toLowerCase();
}

/** Jackson's `JsonNode.asText()` for a parsed JSON value. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** Jackson's `JsonNode.asBoolean()`. */
function asBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.trim() === 'true';
  return false;
}

const TAGS: Record<string, BlockTag> = {
  latest: 'latest',
  earliest: 'earliest',
  pending: 'pending',
  safe: 'safe',
  finalized: 'finalized',
};

// Shared results for the common tags, so decoding `latest` allocates nothing.
const TAG_PARAMS: Record<BlockTag, BlockParam> = {
  latest: Object.freeze({ kind: 'tag', tag: 'latest' }),
  earliest: Object.freeze({ kind: 'tag', tag: 'earliest' }),
  pending: Object.freeze({ kind: 'tag', tag: 'pending' }),
  safe: Object.freeze({ kind: 'tag', tag: 'safe' }),
  finalized: Object.freeze({ kind: 'tag', tag: 'finalized' }),
};

function tagOf(text: string): BlockParam | undefined {
  const tag = TAGS[text] ?? TAGS[text.toLowerCase()];
  return tag === undefined ? undefined : TAG_PARAMS[tag];
}

/**
 * Block number, tag, hash or EIP-1898 object (Besu's `BlockParameterOrBlockHash`; eth_getBalance,
 * eth_getCode, eth_call, eth_getStorageAt, eth_getTransactionCount, eth_getProof …).
 * - tags, case-insensitive;
 * - a string of 65+ characters is a block hash (lenient: `0x` optional, left-padded, at most 32 bytes);
 * - a string of 17–64 characters is refused (so `0x` + 16 digits is refused, Besu's "> 64 bits" check);
 * - otherwise `Long.decode`: hex `0x…`, decimal, octal with a leading `0`, negative allowed;
 * - `{blockHash, requireCanonical?}` or `{blockNumber}` objects (`blockHash` wins when both are present).
 */
export const blockParam: Decoder<BlockParam> = decoder(INVALID_BLOCK_PARAMS, (value) => {
  if (typeof value === 'string') {
    const tag = tagOf(value);
    if (tag !== undefined) return tag;
    if (value.length >= 65) {
      const hash = lenientHex(value.toLowerCase(), 32);
      return hash === undefined ? undefined : { kind: 'hash', hash, requireCanonical: false };
    }
    if (value.length > 16) return undefined;
    const number = javaLongDecode(value);
    return number === undefined ? undefined : { kind: 'number', number };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  if (obj.blockHash !== undefined) {
    const hash = lenientHex(asText(obj.blockHash), 32);
    if (hash === undefined) return undefined;
    const requireCanonical = obj.requireCanonical === undefined ? false : asBoolean(obj.requireCanonical);
    return { kind: 'hash', hash, requireCanonical };
  }
  if (obj.blockNumber === undefined) return undefined;
  const number = javaLongDecode(asText(obj.blockNumber));
  return number === undefined ? undefined : { kind: 'number', number };
});

/**
 * Block number or tag only (Besu's `BlockParameter`; eth_getBlockByNumber, eth_getBlockReceipts,
 * eth_getTransactionByBlockNumberAndIndex, trace_block …): tags case-insensitive, else `Long.decode`
 * with no length limit. Objects, hashes and JSON numbers are refused.
 */
export const blockNumberParam: Decoder<Exclude<BlockParam, { kind: 'hash' }>> = decoder(
  INVALID_BLOCK_PARAMS,
  (value) => {
    if (typeof value !== 'string') return undefined;
    const tag = tagOf(value);
    if (tag !== undefined) return tag as Exclude<BlockParam, { kind: 'hash' }>;
    const number = javaLongDecode(value);
    return number === undefined ? undefined : { kind: 'number', number };
  },
);

/** 20-byte address, lenient as Besu's `Address.fromHexString`: `0x` optional, short values left-padded. Lowercase `0x…`. */
export const address: Decoder<string> = decoder(INVALID_ADDRESS_PARAMS, (value) =>
  typeof value === 'string' ? lenientHex(value, 20) : undefined,
);

/** Exactly 32 bytes of hex, `0x` optional (Besu's `Hash`). Lowercase `0x…`. */
export const hash32: Decoder<string> = decoder(INVALID_PARAMS, (value) => {
  if (typeof value !== 'string') return undefined;
  const digits = strictHexDigits(value);
  return digits !== undefined && digits.length === 64 ? `0x${digits}` : undefined;
});

/** Each hex digit's value by character code (either case); -1 for every other character. */
const NIBBLE = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[0x30 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[0x61 + i] = 10 + i;
  NIBBLE[0x41 + i] = 10 + i;
}
/** Above this many digits the native decoder (after a validating scan) beats the loop below. */
const LOOP_DECODE_MAX_DIGITS = 1024;

/**
 * Decoded values up to 64 bytes are cut from shared 8 KiB buffers (see ByteSlab: a typed array that
 * small built on its own would move out of the heap on the first read of its `.buffer`, which every
 * hex or latin1 key built from it makes). The buffers stay small because a decoded parameter may live
 * long (a filter's addresses and topics) and keeps its whole buffer.
 */
const paramSlab = new ByteSlab(8192, 64);

/**
 * The bytes of `text[start…]`, two hex digits (either case) per byte; undefined for an odd count or
 * any other character. One pass validates and decodes, without the intermediate strings of a
 * slice, a lower-casing and a regular expression.
 */
function hexDigitsToBytes(text: string, start: number): Uint8Array | undefined {
  const digits = text.length - start;
  if (digits & 1) return undefined;
  if (digits > LOOP_DECODE_MAX_DIGITS) {
    const body = text.slice(start);
    if (!HEX_OR_EMPTY.test(body)) return undefined;
    const buf = Buffer.from(body, 'hex');
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
  }
  const out = paramSlab.bytes(digits >> 1);
  for (let i = 0, j = start; i < out.length; i++, j += 2) {
    const c1 = text.charCodeAt(j);
    const c2 = text.charCodeAt(j + 1);
    const hi = c1 < 256 ? (NIBBLE[c1] as number) : -1;
    const lo = c2 < 256 ? (NIBBLE[c2] as number) : -1;
    if ((hi | lo) < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** Where the digits start: after a lowercase `0x` prefix, if any (as Tuweni reads it). */
function digitsStart(text: string): number {
  return text.charCodeAt(0) === 0x30 && text.charCodeAt(1) === 0x78 ? 2 : 0;
}

/** Even-length hex bytes, `0x` optional (Tuweni `Bytes.fromHexString`). */
export const data: Decoder<Uint8Array> = decoder(INVALID_PARAMS, (value) =>
  typeof value === 'string' ? hexDigitsToBytes(value, digitsStart(value)) : undefined,
);

/**
 * `address` as its 20 bytes. The usual form (`0x` and 40 digits) is decoded in one pass; any other
 * goes through `address`'s lenient reading first.
 */
export const addressBytes: Decoder<Uint8Array> = decoder(INVALID_ADDRESS_PARAMS, (value) => {
  if (typeof value !== 'string') return undefined;
  if (value.length === 42 && digitsStart(value) === 2) {
    const bytes = hexDigitsToBytes(value, 2);
    if (bytes !== undefined) return bytes;
  }
  const hex = lenientHex(value, 20);
  return hex === undefined ? undefined : hexDigitsToBytes(hex, 2);
});

/** Unsigned 256-bit hex quantity (Besu's `UInt256Parameter`): `0x` optional, odd length fine, `0x` alone is 0. */
export const quantity: Decoder<bigint> = decoder(INVALID_PARAMS, (value) => {
  if (typeof value !== 'string') return undefined;
  const hex = lenientHex(value, 32);
  return hex === undefined ? undefined : BigInt(hex);
});

/**
 * Unsigned 64-bit value (Besu's `UnsignedLongParameter`): a string is always hex, `0x` optional (`"10"`
 * is 16); a JSON integer is taken as is (a negative one wraps, as a Java long read as unsigned).
 */
export const uint64: Decoder<bigint> = decoder(INVALID_PARAMS, (value) => {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return undefined;
    const n = BigInt(value);
    return n < MIN_LONG || n > MAX_LONG ? undefined : BigInt.asUintN(64, n);
  }
  if (typeof value !== 'string') return undefined;
  let body = value.startsWith('0x') ? value.slice(2) : value;
  if (body.startsWith('+')) body = body.slice(1);
  if (!HEX.test(body)) return undefined;
  const n = BigInt(`0x${body}`);
  return n > MAX_ULONG ? undefined : n;
});

/** Signed 64-bit `Long.decode` string (hex, decimal or octal), e.g. a transaction index. */
export const long: Decoder<bigint> = decoder(INVALID_PARAMS, (value) =>
  typeof value === 'string' ? javaLongDecode(value) : undefined,
);

/** Boolean as Jackson reads one: JSON booleans, `"true"`/`"True"`/`"TRUE"` (and false forms), integers (0 = false). */
export const bool: Decoder<boolean> = decoder(INVALID_PARAMS, (value) => {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? value !== 0 : undefined;
  if (typeof value === 'string') {
    if (value === 'true' || value === 'True' || value === 'TRUE') return true;
    if (value === 'false' || value === 'False' || value === 'FALSE') return false;
  }
  return undefined;
});

/** Any JSON string. */
export const string: Decoder<string> = decoder(INVALID_PARAMS, (value) =>
  typeof value === 'string' ? value : undefined,
);

/** Exactly 32 bytes of hex, `0x` optional (a block or transaction hash), as bytes. */
export const hashBytes: Decoder<Uint8Array> = decoder(INVALID_PARAMS, (value) => {
  if (typeof value !== 'string') return undefined;
  const start = digitsStart(value);
  return value.length - start === 64 ? hexDigitsToBytes(value, start) : undefined;
});
