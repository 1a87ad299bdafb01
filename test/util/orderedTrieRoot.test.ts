/**
 * The root of index-keyed tries, whole or appended entry by entry, equals the library trie's root for
 * every size and value shape.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/crypto/index.js';
import { OrderedTrie, orderedTrieRoot } from '../../src/util/orderedTrieRoot.js';
import { seededBytes } from '../helpers/seeded.js';

async function libraryRoot(values: Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i] as Uint8Array);
  return trie.root();
}

const bytes = seededBytes(7);

describe('orderedTrieRoot', () => {
  it('matches the library trie for 0 to 300 entries of short, mixed and long values', async () => {
    const sizes = [0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 300];
    for (const n of sizes) {
      for (const shape of [
        () => bytes(1),
        () => bytes(1 + ((bytes(1)[0] as number) % 40)),
        () => bytes(120),
      ]) {
        const values = Array.from({ length: n }, shape);
        expect(orderedTrieRoot(values, keccak256), `n=${n}`).toEqual(await libraryRoot(values));
      }
    }
  });

  it('matches for a block-sized list (3,000 receipts)', async () => {
    const values = Array.from({ length: 3000 }, () => bytes(200));
    expect(orderedTrieRoot(values, keccak256)).toEqual(await libraryRoot(values));
  });

  it('gives the same roots while entries are appended one at a time, across runs of 16 and sizes', async () => {
    const values = Array.from({ length: 700 }, (_, i) => bytes(i % 3 === 0 ? 2 : 90));
    const trie = new OrderedTrie(keccak256);
    const checked = new Set([1, 128, 255, 256, 257, 271, 272, 273, 287, 288, 300, 511, 512, 700]);
    for (let i = 0; i < values.length; i++) {
      trie.push(values[i] as Uint8Array);
      if (checked.has(i + 1))
        expect(trie.root(), `n=${i + 1}`).toEqual(await libraryRoot(values.slice(0, i + 1)));
    }
    expect(trie.size).toBe(700);
  });

  it('matches a plain recursive root past 65,536 entries, where keys grow a byte', () => {
    const values = Array.from({ length: 65_555 }, (_, i) => Uint8Array.of(i & 255, (i >> 8) & 255, 7));
    expect(orderedTrieRoot(values, keccak256)).toEqual(plainRoot(values));
  });
});

/** An independent root: the trie of RLP(i) → values[i] from sorted keys, by the Yellow Paper's rules. */
function plainRoot(values: Uint8Array[]): Uint8Array {
  const nibbles = (key: Uint8Array) => Array.from(key).flatMap((b) => [b >> 4, b & 15]);
  const entries = values.map((value, i) => ({ key: nibbles(RLP.encode(i)), value }));
  entries.sort((a, b) => {
    for (let k = 0; k < Math.min(a.key.length, b.key.length); k++)
      if (a.key[k] !== b.key[k]) return (a.key[k] as number) - (b.key[k] as number);
    return a.key.length - b.key.length;
  });
  const hexPrefix = (path: number[], leaf: boolean) => {
    const flag = (leaf ? 2 : 0) + (path.length % 2);
    const all = path.length % 2 === 1 ? [flag, ...path] : [flag, 0, ...path];
    return Uint8Array.from(
      { length: all.length / 2 },
      (_, k) => ((all[2 * k] as number) << 4) | (all[2 * k + 1] as number),
    );
  };
  type Node = Uint8Array | Node[];
  const ref = (node: Node): Node => {
    const encoded = RLP.encode(node);
    return encoded.length < 32 ? node : keccak256(encoded);
  };
  const build = (list: typeof entries, depth: number): Node => {
    const first = list[0] as (typeof entries)[number];
    if (list.length === 1) return [hexPrefix(first.key.slice(depth), true), first.value];
    const last = (list[list.length - 1] as (typeof entries)[number]).key;
    let shared = depth;
    while (first.key[shared] !== undefined && first.key[shared] === last[shared]) shared++;
    if (shared > depth) return [hexPrefix(first.key.slice(depth, shared), false), ref(build(list, shared))];
    const children: Node[] = [];
    for (let n = 0; n < 16; n++) {
      const under = list.filter((e) => e.key[depth] === n);
      children.push(under.length === 0 ? new Uint8Array(0) : ref(build(under, depth + 1)));
    }
    return [...children, new Uint8Array(0)];
  };
  return keccak256(RLP.encode(build(entries, 0)));
}
