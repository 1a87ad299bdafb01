/**
 * Walks RLP without decoding it: the byte ranges of a list's items, so a stored block body yields its
 * transactions' exact encodings (and their hashes) without building transaction objects.
 */
import { rlpListSize, writeRlpHeader } from '../util/rlpWrite.js';

export interface RlpItem {
  /** Offset of the item's first byte (its prefix). */
  start: number;
  /** Offset after its last byte. */
  end: number;
  /** Offset of its payload (after the prefix). */
  payload: number;
  isList: boolean;
}

function readLength(buf: Uint8Array, at: number, bytes: number): number {
  if (bytes > 6 || at + bytes > buf.length) throw new Error('RLP: bad length prefix');
  let n = 0;
  for (let i = 0; i < bytes; i++) n = n * 256 + (buf[at + i] as number);
  return n;
}

/** The RLP prefix of a string (`base` 0x80) or list (`base` 0xc0) whose payload is `length` bytes. */
export function rlpLengthPrefix(length: number, base: number): Uint8Array {
  const out = new Uint8Array(rlpListSize(length) - length);
  writeRlpHeader(out, 0, length, base === 0xc0);
  return out;
}

/** The item starting at `at`. */
export function rlpItemAt(buf: Uint8Array, at: number): RlpItem {
  const b = buf[at];
  if (b === undefined) throw new Error('RLP: unexpected end of input');
  let item: RlpItem;
  if (b < 0x80) item = { start: at, end: at + 1, payload: at, isList: false };
  else if (b <= 0xb7) item = { start: at, end: at + 1 + (b - 0x80), payload: at + 1, isList: false };
  else if (b <= 0xbf) {
    const ll = b - 0xb7;
    const len = readLength(buf, at + 1, ll);
    item = { start: at, end: at + 1 + ll + len, payload: at + 1 + ll, isList: false };
  } else if (b <= 0xf7) item = { start: at, end: at + 1 + (b - 0xc0), payload: at + 1, isList: true };
  else {
    const ll = b - 0xf7;
    const len = readLength(buf, at + 1, ll);
    item = { start: at, end: at + 1 + ll + len, payload: at + 1 + ll, isList: true };
  }
  if (item.end > buf.length) throw new Error('RLP: item runs past the end of input');
  return item;
}

/** The items of the list `list` (which must be a list item of `buf`). */
export function rlpListItems(buf: Uint8Array, list: RlpItem): RlpItem[] {
  if (!list.isList) throw new Error('RLP: expected a list');
  const out: RlpItem[] = [];
  let at = list.payload;
  while (at < list.end) {
    const item = rlpItemAt(buf, at);
    out.push(item);
    at = item.end;
  }
  if (at !== list.end) throw new Error('RLP: list items overrun the list');
  return out;
}

/**
 * True when the item is written in its one canonical form, as a strict decoder demands: a single byte
 * below 0x80 stands for itself, and a long-form length has no leading zero and exceeds 55.
 */
export function rlpIsCanonical(buf: Uint8Array, item: RlpItem): boolean {
  const b = buf[item.start] as number;
  if (b < 0x80) return true;
  if (b === 0x81) return (buf[item.payload] as number) >= 0x80;
  if (b <= 0xb7 || (b >= 0xc0 && b <= 0xf7)) return true;
  return buf[item.start + 1] !== 0 && item.end - item.payload > 55;
}

/**
 * The items of `list` when it and every item are canonical and end exactly where the list does;
 * undefined otherwise (and for a string). Throws only on input that runs past `buf`.
 */
export function rlpCanonicalListItems(buf: Uint8Array, list: RlpItem): RlpItem[] | undefined {
  if (!list.isList || !rlpIsCanonical(buf, list)) return undefined;
  const out: RlpItem[] = [];
  let at = list.payload;
  while (at < list.end) {
    const item = rlpItemAt(buf, at);
    if (item.end > list.end || !rlpIsCanonical(buf, item)) return undefined;
    out.push(item);
    at = item.end;
  }
  return out;
}

/**
 * The network encodings of a stored body's transactions, as a transaction hash covers them: a legacy
 * transaction's whole list, a typed transaction's `type ‖ payload` (the string's content).
 */
export function bodyTransactionEncodings(body: Uint8Array): Uint8Array[] {
  const top = rlpItemAt(body, 0);
  const sections = rlpListItems(body, top);
  const txList = sections[0];
  if (txList === undefined) return [];
  return rlpListItems(body, txList).map((tx) =>
    tx.isList ? body.subarray(tx.start, tx.end) : body.subarray(tx.payload, tx.end),
  );
}
