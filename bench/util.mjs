/**
 * Small helpers the bench, fault, fuzz and soak scripts share. No side effects on import (bench/lib.mjs
 * installs exit handlers; these scripts manage their own children).
 */
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** A small deterministic generator (xorshift32), so a run can be repeated with --seed. */
export function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
