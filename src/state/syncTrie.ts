/**
 * Synchronous lookups in a Merkle-Patricia trie kept in the trie store: LMDB reads are synchronous,
 * so a read-only walk needs no promises. Hot read paths (state reads of simulated calls) use this
 * instead of the trie library's asynchronous `get`, which costs a chain of promises per node.
 * Keys are hashed (secure trie), as the world state's tries are.
 */
import { RLP } from '@ethereumjs/rlp';
import { equalsBytes, KECCAK256_RLP } from '@ethereumjs/util';
import { keccak256 } from '../crypto/index.js';
import { bytesToHexKey } from './trieStore.js';

type RawNode = Uint8Array | RawNode[];

/** Reads a stored trie node (its RLP) by its hash as an unprefixed hex key. */
export type NodeLoader = (hexKey: string) => Uint8Array | undefined;

/** Nibbles of a byte string. */
function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4;
    out[2 * i + 1] = key[i] & 15;
  }
  return out;
}

/**
 * The value stored under `key` in the trie with root `root`, or `null`. Throws when a node the walk
 * needs is missing from the store (a pruned or unknown root), as the asynchronous trie does.
 */
export function trieGetSync(load: NodeLoader, root: Uint8Array, key: Uint8Array): Uint8Array | null {
  return walk(load, root, keccak256(key), undefined);
}

/** `trieGetSync` for a key already hashed (its 32-byte path). */
export function trieGetHashedSync(
  load: NodeLoader,
  root: Uint8Array,
  hashedKey: Uint8Array,
): Uint8Array | null {
  return walk(load, root, hashedKey, undefined);
}

/**
 * The Merkle proof of `key` in the trie at `root`: every node the lookup visits, root first, as RLP
 * (EIP-1186; nodes embedded in their parent are listed too, as the trie library's proofs list them).
 * An empty trie has an empty proof.
 */
export function trieProofSync(load: NodeLoader, root: Uint8Array, key: Uint8Array): Uint8Array[] {
  const nodes: Uint8Array[] = [];
  walk(load, root, keccak256(key), nodes);
  return nodes;
}

function walk(
  load: NodeLoader,
  root: Uint8Array,
  hashedKey: Uint8Array,
  visited: Uint8Array[] | undefined,
): Uint8Array | null {
  if (equalsBytes(root, KECCAK256_RLP)) return null;
  const path = nibblesOf(hashedKey);
  let pos = 0;
  let node = resolve(load, root, visited);
  for (;;) {
    if (node.length === 17) {
      if (pos === path.length) {
        const v = node[16] as Uint8Array;
        return v.length === 0 ? null : v;
      }
      const child = node[path[pos++]];
      if (child instanceof Uint8Array && child.length === 0) return null;
      node =
        child instanceof Uint8Array ? resolve(load, child, visited) : inline(child as RawNode[], visited);
      continue;
    }
    if (node.length !== 2) throw new Error('malformed trie node');
    const encoded = node[0] as Uint8Array;
    const flag = encoded[0] >> 4;
    const leaf = flag >= 2;
    // Hex-prefix encoding: an odd path keeps its first nibble in the flag byte.
    const odd = (flag & 1) === 1;
    const partLength = (encoded.length - 1) * 2 + (odd ? 1 : 0);
    if (pos + partLength > path.length) return null;
    let i = 0;
    if (odd) {
      if ((encoded[0] & 15) !== path[pos]) return null;
      i = 1;
    }
    for (let b = 1; b < encoded.length; b++) {
      if (encoded[b] >> 4 !== path[pos + i]) return null;
      if ((encoded[b] & 15) !== path[pos + i + 1]) return null;
      i += 2;
    }
    pos += partLength;
    if (leaf) return pos === path.length ? (node[1] as Uint8Array) : null;
    const child = node[1];
    node = child instanceof Uint8Array ? resolve(load, child, visited) : inline(child as RawNode[], visited);
  }
}

/** A node embedded in its parent (under 32 bytes), recorded as its own RLP. */
function inline(node: RawNode[], visited: Uint8Array[] | undefined): RawNode[] {
  visited?.push(RLP.encode(node as never));
  return node;
}

/** A node by reference: a 32-byte hash to load, or (under 32 bytes) the node inline. */
function resolve(load: NodeLoader, ref: Uint8Array, visited: Uint8Array[] | undefined): RawNode[] {
  if (ref.length < 32) {
    visited?.push(ref);
    return RLP.decode(ref) as RawNode[];
  }
  const raw = load(bytesToHexKey(ref));
  if (raw === undefined) throw new Error(`missing trie node ${bytesToHexKey(ref)}`);
  visited?.push(raw);
  return RLP.decode(raw) as RawNode[];
}

/**
 * Every (key, value) of the trie at `root`, in key order; keys are the 32-byte paths (the hashed
 * keys of a secure trie).
 */
export function* trieEntriesSync(load: NodeLoader, root: Uint8Array): Generator<[Uint8Array, Uint8Array]> {
  if (equalsBytes(root, KECCAK256_RLP)) return;
  const path: number[] = [];
  yield* entries(load, resolve(load, root, undefined), path);
}

function* entries(load: NodeLoader, node: RawNode[], path: number[]): Generator<[Uint8Array, Uint8Array]> {
  if (node.length === 17) {
    const v = node[16] as Uint8Array;
    if (v.length > 0) yield [pathBytes(path), v];
    for (let i = 0; i < 16; i++) {
      const child = node[i];
      if (child instanceof Uint8Array && child.length === 0) continue;
      path.push(i);
      yield* entries(
        load,
        child instanceof Uint8Array ? resolve(load, child, undefined) : (child as RawNode[]),
        path,
      );
      path.pop();
    }
    return;
  }
  const encoded = node[0] as Uint8Array;
  const flag = encoded[0] >> 4;
  const start = path.length;
  if (flag & 1) path.push(encoded[0] & 15);
  for (let b = 1; b < encoded.length; b++) path.push(encoded[b] >> 4, encoded[b] & 15);
  if (flag >= 2) yield [pathBytes(path), node[1] as Uint8Array];
  else {
    const child = node[1];
    yield* entries(
      load,
      child instanceof Uint8Array ? resolve(load, child, undefined) : (child as RawNode[]),
      path,
    );
  }
  path.length = start;
}

function pathBytes(path: number[]): Uint8Array {
  const out = new Uint8Array(path.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (path[2 * i] << 4) | path[2 * i + 1];
  return out;
}
