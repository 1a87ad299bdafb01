/** The one-pass root of index-keyed tries equals the library trie's root for every size and value shape. */
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/crypto/index.js';
import { orderedTrieRoot } from '../../src/util/orderedTrieRoot.js';

async function libraryRoot(values: Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i] as Uint8Array);
  return trie.root();
}

let seed = 7;
function bytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    out[i] = seed & 255;
  }
  return out;
}

describe('orderedTrieRoot', () => {
  it('matches the library trie for 0 to 300 entries of short, mixed and long values', async () => {
    const sizes = [0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 300];
    for (const n of sizes) {
      for (const shape of [() => bytes(1), () => bytes(1 + (seed % 40)), () => bytes(120)]) {
        const values = Array.from({ length: n }, shape);
        expect(orderedTrieRoot(values, keccak256), `n=${n}`).toEqual(await libraryRoot(values));
      }
    }
  });

  it('matches for a block-sized list (3,000 receipts)', async () => {
    const values = Array.from({ length: 3000 }, () => bytes(200));
    expect(orderedTrieRoot(values, keccak256)).toEqual(await libraryRoot(values));
  });
});
