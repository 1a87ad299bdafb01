/** Deterministic pseudo-random test data (a linear congruential generator): the same every run. */

/** Numbers in [0, 1) from `seed`. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Byte arrays of the asked length from `seed`. */
export function seededBytes(seed: number): (length: number) => Uint8Array {
  const r = seededRandom(seed);
  return (length) => Uint8Array.from({ length }, () => Math.floor(r() * 256));
}
