/** Pseudo-random bytes from a fixed seed (a linear congruential generator): the same data every run. */
export function seededBytes(seed: number): (length: number) => Uint8Array {
  let state = seed;
  return (length) => {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      out[i] = state & 255;
    }
    return out;
  };
}
