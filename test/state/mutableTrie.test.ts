import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, KECCAK256_RLP } from '@ethereumjs/util';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/crypto/index.js';
import { MutableTrie } from '../../src/state/mutableTrie.js';
import { trieGetSync } from '../../src/state/syncTrie.js';
import { seededRandom } from '../helpers/seeded.js';

function bytes(n: number, r: () => number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
}

describe('MutableTrie', () => {
  it('computes the roots the library trie computes, over inserts, updates and removals in rounds', async () => {
    const r = seededRandom(7);
    const store = new Map<string, Uint8Array>();
    const reference = new MerklePatriciaTrie({ useKeyHashing: true, useKeyHashingFunction: keccak256 });
    let root = KECCAK256_RLP;
    const keys: Uint8Array[] = [];
    const live = new Map<string, Uint8Array>();
    for (let round = 0; round < 12; round++) {
      // A fresh trie per round over the stored nodes, as a new block starts from its parent's root.
      const trie = new MutableTrie(root, (k) => store.get(k));
      const ops = 1 + Math.floor(r() * 120);
      for (let i = 0; i < ops; i++) {
        const roll = r();
        let key: Uint8Array;
        if (keys.length > 0 && roll < 0.5) key = keys[Math.floor(r() * keys.length)];
        else {
          // Short keys share prefixes often, which exercises extensions and embedded nodes.
          key = bytes(1 + Math.floor(r() * 3), r);
          keys.push(key);
        }
        // Small values make nodes under 32 bytes that are embedded in their parent.
        const value = r() < 0.3 ? new Uint8Array(0) : RLP.encode(bytes(Math.floor(r() * 40), r));
        if (value.length === 0) {
          await reference.del(key);
          live.delete(bytesToHex(key));
        } else {
          await reference.put(key, value);
          live.set(bytesToHex(key), value);
        }
        trie.put(keccak256(key), value);
      }
      root = trie.commit((k, v) => store.set(k, v));
      expect(bytesToHex(root)).toBe(bytesToHex(reference.root()));
      // Every live key reads back from the stored nodes alone.
      for (const [k, v] of live) {
        const got = trieGetSync((h) => store.get(h), root, Uint8Array.from(Buffer.from(k.slice(2), 'hex')));
        expect(got && bytesToHex(got)).toBe(bytesToHex(v));
      }
    }
  });

  it('gives the same roots and stored nodes when changed subtrees are hashed ahead between puts (hashSome)', () => {
    const r = seededRandom(13);
    const plain = new Map<string, Uint8Array>();
    const ahead = new Map<string, Uint8Array>();
    let root = KECCAK256_RLP;
    const keys: Uint8Array[] = [];
    const live = new Map<string, Uint8Array>();
    let cut = 0;
    let whole = 0;
    for (let round = 0; round < 10; round++) {
      const a = new MutableTrie(root, (k) => plain.get(k));
      const b = new MutableTrie(root, (k) => ahead.get(k));
      const ops = 50 + Math.floor(r() * 400);
      for (let i = 0; i < ops; i++) {
        let key: Uint8Array;
        if (keys.length > 0 && r() < 0.3) key = keys[Math.floor(r() * keys.length)];
        else {
          key = bytes(1 + Math.floor(r() * 3), r);
          keys.push(key);
        }
        const value = r() < 0.2 ? new Uint8Array(0) : RLP.encode(bytes(Math.floor(r() * 40), r));
        if (value.length === 0) live.delete(bytesToHex(key));
        else live.set(bytesToHex(key), value);
        a.put(keccak256(key), value);
        b.put(keccak256(key), value);
        if (r() < 0.05) {
          // A deadline already past hashes one subtree; an open one every changed subtree.
          if (
            b.hashSome(
              (k, v) => ahead.set(k, v),
              r() < 0.6 ? performance.now() - 1 : Number.POSITIVE_INFINITY,
            )
          )
            whole++;
          else cut++;
        }
      }
      const rootA = a.commit((k, v) => plain.set(k, v));
      const rootB = b.commit((k, v) => ahead.set(k, v));
      expect(bytesToHex(rootB)).toBe(bytesToHex(rootA));
      root = rootA;
      // Every live key reads back from the nodes stored on the way that hashed ahead.
      for (const [k, v] of live) {
        const got = trieGetSync((h) => ahead.get(h), root, Uint8Array.from(Buffer.from(k.slice(2), 'hex')));
        expect(got && bytesToHex(got)).toBe(bytesToHex(v));
      }
    }
    expect(cut).toBeGreaterThan(5);
    expect(whole).toBeGreaterThan(5);
  });

  it('is empty again once every key is removed, and a single small leaf is stored by its hash', () => {
    const store = new Map<string, Uint8Array>();
    const trie = new MutableTrie(KECCAK256_RLP, (k) => store.get(k));
    trie.put(keccak256(Uint8Array.of(1)), Uint8Array.of(5));
    const root = trie.commit((k, v) => store.set(k, v));
    expect(store.has(Buffer.from(root).toString('hex'))).toBe(true);
    const again = new MutableTrie(root, (k) => store.get(k));
    again.put(keccak256(Uint8Array.of(1)), new Uint8Array(0));
    expect(bytesToHex(again.commit(() => {}))).toBe(bytesToHex(KECCAK256_RLP));
  });
});
