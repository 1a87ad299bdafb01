/**
 * Besu answers some maps and lists in the iteration order of a default java.util.HashMap. Reproducing
 * it keeps results byte-identical: entries sit in buckets by the spread key hash, within a bucket in
 * insertion order, and the table doubles from 16 buckets whenever it is more than three quarters full.
 */

/** `String.hashCode` over UTF-16 code units. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Tuweni `Bytes.hashCode` (Besu's Address): 31-based over the signed bytes, seeded with 1. */
export function javaBytesHash(bytes: Uint8Array): number {
  let h = 1;
  for (const b of bytes) h = (Math.imul(h, 31) + ((b << 24) >> 24)) | 0;
  return h;
}

/** `keys` (distinct, in insertion order) in the order a HashMap built from them iterates. */
export function hashMapOrder<K>(keys: readonly K[], hash: (key: K) => number): K[] {
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  const bucket = (k: K): number => {
    const h = hash(k);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucket(k) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((e) => e.k);
}
