/**
 * A Merkle-Patricia trie held in memory for writing: a block's updates are applied to decoded nodes
 * (loaded from the trie store on first use), and the nodes they changed are encoded and hashed once,
 * when the root is asked for — not once per update, as a trie that stores every update's path does.
 * Unchanged subtrees stay as hash references and are never loaded. The nodes a root computation
 * produced go to a sink (the trie store's pending writes, committed with the block).
 *
 * Keys are the already-hashed 32-byte keys of the world state's secure tries; values are the leaf
 * values as stored (an account's RLP, a storage value's RLP).
 */
import { RLP } from '@ethereumjs/rlp';
import { equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { slabBytes } from '../util/byteSlab.js';
import { bytesToHexKey } from './trieStore.js';

/** Reads a stored node's RLP by its hash (unprefixed hex); undefined when the store lacks it. */
export type NodeSource = (hexKey: string) => Uint8Array | undefined;
/** Receives each new node of at least 32 bytes (and the root node), by its hash (as hex and as bytes). */
export type NodeSink = (hexKey: string, rlp: Uint8Array, hash: Uint8Array) => void;

type RawNode = Uint8Array | RawNode[];

/** Encoded form of a clean node as its parent refers to it: a hash, or (under 32 bytes) the node. */
type Ref = Uint8Array | RawNode[];

interface Leaf {
  t: 0;
  key: Uint8Array; // nibbles
  value: Uint8Array;
  ref?: Ref;
}
interface Extension {
  t: 1;
  key: Uint8Array;
  child: Node;
  ref?: Ref;
}
interface Branch {
  t: 2;
  children: Array<Node | null>;
  value: Uint8Array | null;
  ref?: Ref;
}
/** A stored node not loaded yet. */
interface HashRef {
  t: 3;
  hash: Uint8Array;
  ref: Uint8Array;
}
type Node = Leaf | Extension | Branch | HashRef;

const EMPTY = new Uint8Array(0);
/**
 * Levels `hashSome` leaves to `commit`: below two levels a trie of a few thousand entries or more has
 * hundreds of subtrees, each a fraction of a millisecond to hash, and the two levels left are
 * 17 nodes at most, hashed again on every root.
 */
const SETTLED_DEPTH = 2;

function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

function hexPrefix(nibbles: Uint8Array, leaf: boolean): Uint8Array {
  const odd = nibbles.length & 1;
  const out = new Uint8Array((nibbles.length >> 1) + 1);
  let i = 0;
  if (odd) {
    out[0] = ((leaf ? 2 : 0) + 1) * 16 + nibbles[0];
    i = 1;
  } else out[0] = (leaf ? 2 : 0) * 16;
  for (let o = 1; i < nibbles.length; i += 2, o++) out[o] = nibbles[i] * 16 + nibbles[i + 1];
  return out;
}

function fromHexPrefix(encoded: Uint8Array): { nibbles: Uint8Array; leaf: boolean } {
  const flag = encoded[0] >> 4;
  const odd = flag & 1;
  const n = (encoded.length - 1) * 2 + odd;
  const nibbles = new Uint8Array(n);
  let i = 0;
  if (odd) nibbles[i++] = encoded[0] & 15;
  for (let b = 1; b < encoded.length; b++) {
    nibbles[i++] = encoded[b] >> 4;
    nibbles[i++] = encoded[b] & 15;
  }
  return { nibbles, leaf: flag >= 2 };
}

function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function prefixLength(a: Uint8Array, b: Uint8Array, bStart: number): number {
  const n = Math.min(a.length, b.length - bStart);
  let i = 0;
  while (i < n && a[i] === b[bStart + i]) i++;
  return i;
}

export class MutableTrie {
  private root: Node | null;
  private rootHash: Uint8Array;
  /** Nodes decoded from the store or encoded since the trie was created (a bound on its memory). */
  loaded = 0;

  constructor(
    root: Uint8Array,
    private readonly source: NodeSource,
  ) {
    this.rootHash = root;
    this.root = equalsBytes(root, KECCAK256_RLP) ? null : { t: 3, hash: root, ref: root };
  }

  /** Sets (or, with an empty value, removes) the value under a 32-byte hashed key. */
  put(hashedKey: Uint8Array, value: Uint8Array): void {
    const path = nibblesOf(hashedKey);
    if (this.root !== null && this.root.t === 3) this.root = this.load(this.root.hash);
    this.root = value.length === 0 ? this.remove(this.root, path, 0) : this.insert(this.root, path, 0, value);
  }

  /** The root hash; every node changed since the last call is encoded, hashed and given to `sink`. */
  commit(sink: NodeSink): Uint8Array {
    const root = this.root;
    if (root === null) {
      this.rootHash = KECCAK256_RLP;
      return KECCAK256_RLP;
    }
    if (root.ref instanceof Uint8Array && root.ref.length === 32) {
      this.rootHash = root.ref;
      return root.ref;
    }
    const ref = this.encode(root, sink);
    if (ref instanceof Uint8Array && ref.length === 32) {
      this.rootHash = ref;
      return ref;
    }
    // A root under 32 bytes is still stored by its hash.
    const rlp = encodeNode(ref as RawNode[]);
    const hash = keccak256(rlp);
    sink(bytesToHexKey(hash), rlp, hash);
    root.ref = hash;
    this.rootHash = hash;
    return hash;
  }

  /**
   * Hashes what changed below the trie's top SETTLED_DEPTH levels, one subtree at a time, until
   * `deadline` (performance.now()); true once nothing changed is left below them. `commit` then
   * encodes and hashes only the top levels, so most of a root's hashing can be spread over idle
   * moments. A node hashed here that a later `put` replaces was hashed for nothing, as with an
   * earlier `commit`; the nodes a later `put` leaves in place keep their hashes.
   */
  hashSome(sink: NodeSink, deadline: number): boolean {
    return this.root === null || this.hashBelow(this.root, SETTLED_DEPTH, sink, deadline);
  }

  private hashBelow(node: Node, depth: number, sink: NodeSink, deadline: number): boolean {
    if (node.ref !== undefined) return true;
    if (depth === 0 || node.t === 0) {
      this.encode(node, sink);
      return performance.now() < deadline;
    }
    if (node.t === 1) return this.hashBelow(node.child, depth - 1, sink, deadline);
    const children = (node as Branch).children;
    for (let i = 0; i < 16; i++) {
      const c = children[i];
      if (c !== null && !this.hashBelow(c, depth - 1, sink, deadline)) return false;
    }
    return true;
  }

  /** The root hash as of the last `commit` (or construction). */
  get committedRoot(): Uint8Array {
    return this.rootHash;
  }

  private load(hash: Uint8Array): Node {
    const raw = this.source(bytesToHexKey(hash));
    if (raw === undefined) throw new Error(`missing trie node ${bytesToHexKey(hash)}`);
    this.loaded++;
    const node = this.decode(RLP.decode(raw) as RawNode[]);
    node.ref = hash;
    return node;
  }

  private decode(raw: RawNode[]): Node {
    if (raw.length === 17) {
      const children: Array<Node | null> = new Array(16);
      for (let i = 0; i < 16; i++) children[i] = this.child(raw[i]);
      const v = raw[16] as Uint8Array;
      return { t: 2, children, value: v.length === 0 ? null : v };
    }
    const { nibbles, leaf } = fromHexPrefix(raw[0] as Uint8Array);
    if (leaf) return { t: 0, key: nibbles, value: raw[1] as Uint8Array };
    const child = this.child(raw[1]);
    if (child === null) throw new Error('malformed trie node');
    return { t: 1, key: nibbles, child };
  }

  private child(item: RawNode): Node | null {
    if (item instanceof Uint8Array) {
      if (item.length === 0) return null;
      return { t: 3, hash: item, ref: item };
    }
    const node = this.decode(item);
    node.ref = item;
    return node;
  }

  private resolve(node: Node): Exclude<Node, HashRef> {
    return node.t === 3 ? (this.load(node.hash) as Exclude<Node, HashRef>) : node;
  }

  /** The loaded node in place of a hash reference held by `n` at child `i` (an equivalent swap). */
  private branchChild(n: Branch, i: number): Node | null {
    const c = n.children[i];
    if (c === null || c.t !== 3) return c;
    const loaded = this.load(c.hash);
    n.children[i] = loaded;
    return loaded;
  }

  private extensionChild(n: Extension): Node {
    const c = n.child;
    if (c.t !== 3) return c;
    const loaded = this.load(c.hash);
    n.child = loaded;
    return loaded;
  }

  private insert(node: Node | null, path: Uint8Array, pos: number, value: Uint8Array): Node {
    if (node === null) return { t: 0, key: path.subarray(pos), value };
    const n = node as Exclude<Node, HashRef>;
    if (n.t === 0) {
      const common = prefixLength(n.key, path, pos);
      if (common === n.key.length && pos + common === path.length) {
        if (equalsBytes(n.value, value)) return n;
        return { t: 0, key: n.key, value };
      }
      const branch: Branch = { t: 2, children: new Array(16).fill(null), value: null };
      if (common === n.key.length) branch.value = n.value;
      else branch.children[n.key[common]] = { t: 0, key: n.key.subarray(common + 1), value: n.value };
      const at = pos + common;
      if (at === path.length) branch.value = value;
      else branch.children[path[at]] = { t: 0, key: path.subarray(at + 1), value };
      return common === 0 ? branch : { t: 1, key: n.key.subarray(0, common), child: branch };
    }
    if (n.t === 1) {
      const common = prefixLength(n.key, path, pos);
      if (common === n.key.length) {
        const before = this.extensionChild(n);
        const child = this.insert(before, path, pos + common, value);
        if (child === before) return n;
        return { t: 1, key: n.key, child };
      }
      const branch: Branch = { t: 2, children: new Array(16).fill(null), value: null };
      const rest = n.key.subarray(common + 1);
      branch.children[n.key[common]] = rest.length === 0 ? n.child : { t: 1, key: rest, child: n.child };
      const at = pos + common;
      if (at === path.length) branch.value = value;
      else branch.children[path[at]] = { t: 0, key: path.subarray(at + 1), value };
      return common === 0 ? branch : { t: 1, key: n.key.subarray(0, common), child: branch };
    }
    if (pos === path.length) {
      if (n.value !== null && equalsBytes(n.value, value)) return n;
      return { t: 2, children: n.children, value };
    }
    const i = path[pos];
    const before = this.branchChild(n, i);
    const child = this.insert(before, path, pos + 1, value);
    if (child === before) return n;
    const children = n.children.slice();
    children[i] = child;
    return { t: 2, children, value: n.value };
  }

  private remove(node: Node | null, path: Uint8Array, pos: number): Node | null {
    if (node === null) return null;
    const n = node as Exclude<Node, HashRef>;
    if (n.t === 0) {
      const common = prefixLength(n.key, path, pos);
      return common === n.key.length && pos + common === path.length ? null : n;
    }
    if (n.t === 1) {
      const common = prefixLength(n.key, path, pos);
      if (common !== n.key.length) return n;
      const before = this.extensionChild(n);
      const child = this.remove(before, path, pos + common);
      if (child === before) return n;
      if (child === null) return null;
      return this.joinPrefix(n.key, child);
    }
    let children = n.children;
    let value = n.value;
    if (pos === path.length) {
      if (value === null) return n;
      value = null;
    } else {
      const i = path[pos];
      const before = this.branchChild(n, i);
      const child = this.remove(before, path, pos + 1);
      if (child === before) return n;
      children = children.slice();
      children[i] = child;
    }
    let count = 0;
    let only = -1;
    for (let i = 0; i < 16; i++) {
      if (children[i] !== null) {
        count++;
        only = i;
      }
    }
    if (count === 0) return value === null ? null : { t: 0, key: EMPTY, value };
    if (count === 1 && value === null) {
      return this.joinPrefix(Uint8Array.of(only), children[only] as Node);
    }
    return { t: 2, children, value };
  }

  /** `child` under the nibbles `prefix`, merged into it when it is itself a leaf or an extension. */
  private joinPrefix(prefix: Uint8Array, child: Node): Node {
    const c = this.resolve(child);
    if (c.t === 0) return { t: 0, key: concatNibbles(prefix, c.key), value: c.value };
    if (c.t === 1) return { t: 1, key: concatNibbles(prefix, c.key), child: c.child };
    return { t: 1, key: prefix, child: c };
  }

  /** The node's reference for its parent, encoding and hashing what changed below it. */
  private encode(node: Node, sink: NodeSink): Ref {
    if (node.ref !== undefined) return node.ref;
    let raw: RawNode[];
    if (node.t === 0) raw = [hexPrefix(node.key, true), node.value];
    else if (node.t === 1) raw = [hexPrefix(node.key, false), this.encode(node.child, sink)];
    else {
      raw = new Array(17);
      for (let i = 0; i < 16; i++) {
        const c = (node as Branch).children[i];
        raw[i] = c === null ? EMPTY : this.encode(c, sink);
      }
      raw[16] = (node as Branch).value ?? EMPTY;
    }
    const rlp = encodeNode(raw);
    this.loaded++;
    if (rlp.length < 32) {
      node.ref = raw;
      return raw;
    }
    const hash = keccak256(rlp);
    sink(bytesToHexKey(hash), rlp, hash);
    node.ref = hash;
    return hash;
  }
}

/** RLP of a node's raw form, written in one buffer (the generic encoder allocates per item). */
function encodeNode(raw: RawNode[]): Uint8Array {
  let payload = 0;
  for (let i = 0; i < raw.length; i++) payload += itemLength(raw[i]);
  const out = slabBytes(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  for (let i = 0; i < raw.length; i++) pos = writeItem(out, pos, raw[i]);
  return out;
}

function headerLength(length: number): number {
  if (length < 56) return 1;
  let n = 1;
  for (let l = length; l > 255; l >>>= 8) n++;
  return 1 + n;
}

function writeHeader(out: Uint8Array, pos: number, length: number, base: number): number {
  if (length < 56) {
    out[pos] = base + length;
    return pos + 1;
  }
  const n = headerLength(length) - 1;
  out[pos] = base + 55 + n;
  for (let i = n; i > 0; i--) {
    out[pos + i] = length & 255;
    length >>>= 8;
  }
  return pos + 1 + n;
}

function itemLength(item: RawNode): number {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0] < 0x80) return 1;
    return headerLength(item.length) + item.length;
  }
  let payload = 0;
  for (let i = 0; i < item.length; i++) payload += itemLength(item[i]);
  return headerLength(payload) + payload;
}

function writeItem(out: Uint8Array, pos: number, item: RawNode): number {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0] < 0x80) {
      out[pos] = item[0];
      return pos + 1;
    }
    pos = writeHeader(out, pos, item.length, 0x80);
    out.set(item, pos);
    return pos + item.length;
  }
  let payload = 0;
  for (let i = 0; i < item.length; i++) payload += itemLength(item[i]);
  pos = writeHeader(out, pos, payload, 0xc0);
  for (let i = 0; i < item.length; i++) pos = writeItem(out, pos, item[i]);
  return pos;
}
