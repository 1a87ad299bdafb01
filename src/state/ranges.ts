/**
 * Ordered ranges of a state or storage trie by hashed key (debug_accountRange, debug_storageRangeAt):
 * the leaves from a start key on, in key order, read as the trie is walked and left once enough are
 * found.
 */
import { LeafMPTNode, type MerklePatriciaTrie } from '@ethereumjs/mpt';

export interface TrieEntry {
  /** The hashed key (32 bytes). */
  key: Uint8Array;
  /** The leaf's value (RLP of an account, or of a storage value). */
  value: Uint8Array;
}

function packNibbles(nibbles: readonly number[]): Uint8Array {
  const out = new Uint8Array(nibbles.length >> 1);
  for (let i = 0; i < out.length; i++)
    out[i] = ((nibbles[2 * i] as number) << 4) | (nibbles[2 * i + 1] as number);
  return out;
}

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++)
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return a.length - b.length;
}

/** Up to `count` entries of `trie` whose hashed key is at least `start`, in key order. */
export async function trieRange(
  trie: MerklePatriciaTrie,
  start: Uint8Array,
  count: number,
): Promise<TrieEntry[]> {
  const out: TrieEntry[] = [];
  if (count <= 0) return out;
  for await (const { node, currentKey } of trie.walkTrieIterable(
    trie.root(),
    [],
    undefined,
    async (n) => n instanceof LeafMPTNode,
  )) {
    const leaf = node as LeafMPTNode;
    const key = packNibbles([...currentKey, ...leaf.key()]);
    if (compare(key, start) < 0) continue;
    out.push({ key, value: leaf.value() as Uint8Array });
    if (out.length >= count) break;
  }
  return out;
}
