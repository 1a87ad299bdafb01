/**
 * The RLP written straight into sized buffers (a block's receipt list, a block's changed state keys)
 * is byte for byte what the library's generic encoder gives, for every size class of item and list.
 */
import { RLP } from '@ethereumjs/rlp';
import { describe, expect, it } from 'vitest';
import { encodeReceiptList } from '../../src/chain/receipts.js';
import { FlatState } from '../../src/state/flatState.js';
import { rlpBytesList } from '../../src/util/rlpWrite.js';
import { seededBytes } from '../helpers/seeded.js';

const bytes = seededBytes(3);

describe('RLP written into sized buffers', () => {
  it('lists of byte strings match the generic encoder', () => {
    const lists: Uint8Array[][] = [
      [],
      [new Uint8Array(0)],
      [Uint8Array.of(0x00), Uint8Array.of(0x7f), Uint8Array.of(0x80), Uint8Array.of(0xff)],
      [bytes(55), bytes(56), bytes(255), bytes(256), bytes(70_000)],
      Array.from({ length: 3000 }, (_, i) => bytes(1 + (i % 300))),
    ];
    for (const items of lists) {
      expect(rlpBytesList(items)).toEqual(RLP.encode(items));
      expect(encodeReceiptList(items)).toEqual(RLP.encode(items));
    }
  });

  it("a block's changed state keys match the generic encoding of the same lists", () => {
    for (const n of [0, 1, 2, 50, 4000]) {
      const changes = {
        accounts: Array.from({ length: n }, () => [bytes(32), bytes(70)] as [Uint8Array, Uint8Array]),
        cleared: Array.from({ length: n % 7 }, () => bytes(32)),
        storage: Array.from(
          { length: 2 * n },
          () => [bytes(32), bytes(32), bytes(5)] as [Uint8Array, Uint8Array, Uint8Array],
        ),
      };
      const expected = RLP.encode([
        changes.accounts.map(([hashed]) => hashed),
        changes.cleared,
        changes.storage.map(([hashed, slot]) => Uint8Array.from([...hashed, ...slot])),
      ]);
      expect(FlatState.encodeKeys(changes), `n=${n}`).toEqual(expected);
    }
  });
});
