/** The logs bloom rule: the same bits as the library's Bloom, set and tested. */
import { Bloom } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { addToLogBloom, logBloomBits } from '../../src/chain/logBloom.js';
import { seededBytes } from '../helpers/seeded.js';

const bytes = seededBytes(11);

describe('logs bloom', () => {
  it('sets the bits the library sets for addresses and topics, and finds them again', () => {
    const ours = new Uint8Array(256);
    const library = new Bloom();
    const items = Array.from({ length: 40 }, (_, i) => bytes(i % 2 === 0 ? 20 : 32));
    for (const item of items) {
      addToLogBloom(ours, item);
      library.add(item);
    }
    expect(ours).toEqual(library.bitvector);
    for (const item of items) {
      const bits = logBloomBits(item);
      for (let i = 0; i < 6; i += 2)
        expect((ours[bits[i] as number] as number) & (bits[i + 1] as number)).not.toBe(0);
    }
  });
});
