/**
 * The WebAssembly Keccak-256 every hash in Alder goes through, against an independent implementation
 * (@noble/hashes) for every input length across several absorb blocks (the padding's edge cases at
 * 135, 136 and 137 bytes and their multiples included), large inputs that grow the module's memory,
 * known digests, and the shapes callers pass (Buffers, views into larger arrays).
 */
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { keccak256 } from '../../src/crypto/index.js';
import { wasmKeccak256 } from '../../src/crypto/keccakWasm.js';

const hex = (b: Uint8Array) => bytesToHex(b);

describe('Keccak-256 on WebAssembly', () => {
  it('is the node-wide keccak256 and gives the known digests', () => {
    expect(hex(keccak256(new Uint8Array(0)))).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    // keccak256(RLP of an empty list): the empty trie root.
    expect(hex(keccak256(new Uint8Array([0x80])))).toBe(
      '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
    );
    expect(hex(keccak256(new TextEncoder().encode('Transfer(address,address,uint256)')))).toBe(
      '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    );
  });

  it('matches an independent implementation for every length up to five blocks', () => {
    const hash = wasmKeccak256();
    for (let n = 0; n <= 5 * 136 + 1; n++) {
      const msg = new Uint8Array(randomBytes(n));
      expect(hex(hash(msg)), `length ${n}`).toBe(hex(keccak_256(msg)));
    }
  });

  it('hashes large inputs (memory grows) and then small ones again', () => {
    const hash = wasmKeccak256();
    for (const n of [70_000, 1_000_003, 64]) {
      const msg = new Uint8Array(randomBytes(n));
      expect(hex(hash(msg))).toBe(hex(keccak_256(msg)));
    }
  });

  it('reads only the bytes of a view, and returns a digest no later call overwrites', () => {
    const backing = new Uint8Array(randomBytes(400));
    const view = backing.subarray(37, 37 + 200);
    const first = keccak256(view);
    const copy = first.slice();
    expect(hex(first)).toBe(hex(keccak_256(view.slice())));
    keccak256(new Uint8Array(randomBytes(33)));
    expect(hex(first)).toBe(hex(copy));
    const buf = Buffer.from(randomBytes(90));
    expect(hex(keccak256(buf))).toBe(hex(keccak_256(new Uint8Array(buf))));
  });
});
