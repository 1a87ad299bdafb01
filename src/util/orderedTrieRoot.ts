/**
 * The root of a Merkle-Patricia trie whose keys are RLP(0), RLP(1), … RLP(n-1) — the transactions and
 * receipts tries of a block — with no trie object, no node database and no promise per entry. The
 * library's trie costs ~0.7 ms per `put` here (3,000 receipts: 2.2–2.7 s on this machine under load);
 * a block builder pays that twice per transaction.
 *
 * Nodes follow the Yellow Paper: a leaf is [hex-prefix(rest, leaf), value], an extension
 * [hex-prefix(shared, extension), child], a branch 16 children and a value; a child is referenced by
 * its RLP when that is shorter than 32 bytes and by its keccak-256 otherwise; the root is always hashed.
 * Each node is encoded once, straight into its final bytes (a parent copies its children's references
 * in): the generic RLP encoder re-encoded every embedded structure and concatenated at every level.
 *
 * `OrderedTrie` takes the values one at a time, as a block builder produces them: from index 256 on,
 * keys are a length byte and the index in big-endian bytes, so each aligned run of 16 indices shares
 * every nibble but the last and forms one branch node that no later entry changes. That node is
 * encoded (its leaves hashed) as soon as its 16th value arrives; the root then only combines those
 * nodes with the first 256 entries and the last incomplete run, a small part of the work, when the
 * block closes.
 */
import { slabBytes } from './byteSlab.js';
import { rlpListSize, rlpStringSize, writeRlpHeader, writeRlpString } from './rlpWrite.js';

type Hash = (data: Uint8Array) => Uint8Array;

/** keccak256(RLP("")) : the root of an empty trie. */
const EMPTY_ROOT = Uint8Array.from(
  Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex'),
);
/** RLP of the empty string: an absent branch child or value. */
const EMPTY_ITEM = 0x80;

interface Item {
  nibbles: Uint8Array;
  value: Uint8Array;
  /**
   * Set on a completed run of 16 entries (see `OrderedTrie`): the encoded branch node under `nibbles`,
   * the shared prefix of its keys. Every item carries the field (undefined on an entry), so that all
   * items have one shape for the code that walks them.
   */
  node: Uint8Array | undefined;
}

function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = (key[i] as number) >> 4;
    out[2 * i + 1] = (key[i] as number) & 15;
  }
  return out;
}

/** RLP(i) for a non-negative integer: the keys of the trie. */
function indexKey(i: number): Uint8Array {
  if (i === 0) return Uint8Array.of(0x80);
  if (i < 0x80) return Uint8Array.of(i);
  let length = 1;
  while (length < 6 && i >= 2 ** (8 * length)) length++;
  const out = new Uint8Array(1 + length);
  out[0] = 0x80 + length;
  for (let at = length, v = i; at > 0; at--, v = Math.floor(v / 256)) out[at] = v % 256;
  return out;
}

/** A list of `payload` bytes: its header written at 0 of a new array sized for both; returns both. */
function newList(payload: number): { out: Uint8Array; at: number } {
  const out = slabBytes(rlpListSize(payload));
  return { out, at: writeRlpHeader(out, 0, payload, true) };
}

/** Hex-prefix encoding of nibbles[from, to) (Yellow Paper appendix C). */
function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const length = to - from;
  const odd = length % 2 === 1;
  const out = new Uint8Array(1 + (length >> 1));
  out[0] = ((leaf ? 2 : 0) + (odd ? 1 : 0)) << 4;
  let i = from;
  if (odd) out[0] = (out[0] as number) | (nibbles[i++] as number);
  for (let o = 1; i < to; i += 2, o++) out[o] = ((nibbles[i] as number) << 4) | (nibbles[i + 1] as number);
  return out;
}

/** How a parent holds a child node: its RLP when shorter than 32 bytes, else the RLP string of its hash. */
function reference(encoded: Uint8Array, hash: Hash): Uint8Array {
  if (encoded.length < 32) return encoded;
  const out = new Uint8Array(33);
  out[0] = 0xa0;
  out.set(hash(encoded), 1);
  return out;
}

/** The RLP of the node of `items[lo, hi)` (sorted, distinct keys) below nibble `depth`. */
function nodeOf(items: Item[], lo: number, hi: number, depth: number, hash: Hash): Uint8Array {
  const first = items[lo] as Item;
  if (hi - lo === 1) {
    if (first.node !== undefined) {
      if (first.nibbles.length === depth) return first.node;
      const path = hexPrefix(first.nibbles, depth, first.nibbles.length, false);
      const child = reference(first.node, hash);
      const { out, at } = newList(rlpStringSize(path) + child.length);
      out.set(child, writeRlpString(out, at, path));
      return out;
    }
    const path = hexPrefix(first.nibbles, depth, first.nibbles.length, true);
    const { out, at } = newList(rlpStringSize(path) + rlpStringSize(first.value));
    writeRlpString(out, writeRlpString(out, at, path), first.value);
    return out;
  }
  // Shared prefix of the first and last key (keys are sorted): common to all.
  const last = (items[hi - 1] as Item).nibbles;
  let shared = depth;
  while (shared < first.nibbles.length && shared < last.length && first.nibbles[shared] === last[shared])
    shared++;
  if (shared > depth) {
    const path = hexPrefix(first.nibbles, depth, shared, false);
    const child = reference(nodeOf(items, lo, hi, shared, hash), hash);
    const { out, at } = newList(rlpStringSize(path) + child.length);
    out.set(child, writeRlpString(out, at, path));
    return out;
  }
  const children: Array<Uint8Array | undefined> = new Array(16);
  let value: Uint8Array | undefined;
  let i = lo;
  // A key that ends here sorts first: it is the branch's value.
  if (first.nibbles.length === depth) {
    value = first.value;
    i++;
  }
  let payload = 0;
  for (let n = 0; n < 16; n++) {
    let j = i;
    while (j < hi && (items[j] as Item).nibbles[depth] === n) j++;
    if (j > i) {
      const child = reference(nodeOf(items, i, j, depth + 1, hash), hash);
      children[n] = child;
      payload += child.length;
    } else payload += 1;
    i = j;
  }
  payload += value === undefined ? 1 : rlpStringSize(value);
  const { out, at: start } = newList(payload);
  let at = start;
  for (let n = 0; n < 16; n++) {
    const child = children[n];
    if (child === undefined) out[at++] = EMPTY_ITEM;
    else {
      out.set(child, at);
      at += child.length;
    }
  }
  if (value === undefined) out[at] = EMPTY_ITEM;
  else writeRlpString(out, at, value);
  return out;
}

function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}

/** First index whose key has a length byte (RLP(i) for i ≥ 128 is 0x80 + length, then the bytes). */
const GROUPED_FROM = 256;
/** The value of a completed run's item: unused, its `node` stands for its entries. */
const NO_VALUE = new Uint8Array(0);

/** The trie of RLP(i) → value, built as values are appended in index order (see the module notes). */
export class OrderedTrie {
  /** Entries below GROUPED_FROM and the completed runs of 16 after them, in index order. */
  private readonly items: Item[] = [];
  /** The entries of the run of 16 not yet complete (emptied in place when the run completes). */
  private readonly open: Item[] = [];
  private count = 0;

  constructor(private readonly hash: Hash) {}

  get size(): number {
    return this.count;
  }

  push(value: Uint8Array): void {
    const i = this.count++;
    const item: Item = { nibbles: nibblesOf(indexKey(i)), value, node: undefined };
    if (i < GROUPED_FROM) {
      this.items.push(item);
      return;
    }
    this.open.push(item);
    if ((i & 15) === 15) {
      // The run's keys share all nibbles but the last: its node sits right below that prefix.
      const depth = item.nibbles.length - 1;
      const node = nodeOf(this.open, 0, this.open.length, depth, this.hash);
      this.items.push({ nibbles: item.nibbles.subarray(0, depth), value: NO_VALUE, node });
      this.open.length = 0;
    }
  }

  /** The root of the entries appended so far (appending may go on after). */
  root(): Uint8Array {
    if (this.count === 0) return EMPTY_ROOT;
    const items = this.open.length === 0 ? this.items.slice() : this.items.concat(this.open);
    items.sort((a, b) => compare(a.nibbles, b.nibbles));
    return this.hash(nodeOf(items, 0, items.length, 0, this.hash));
  }
}

/** Root of the trie mapping RLP(i) to `values[i]`. */
export function orderedTrieRoot(values: readonly Uint8Array[], hash: Hash): Uint8Array {
  const trie = new OrderedTrie(hash);
  for (const value of values) trie.push(value);
  return trie.root();
}
