/** The builder's receipt encoder against the library's `encodeReceipt`, over every shape a receipt takes. */
import { encodeReceipt } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { type BuiltReceipt, encodeBuiltReceipt } from '../../src/chain/receiptEncoding.js';

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('encodeBuiltReceipt', () => {
  it('writes the same bytes as the library for every status, gas, log and type shape', () => {
    const datas = [0, 1, 55, 56, 255, 256, 65_536].flatMap((n) => [bytes(n, 0x7f), bytes(n, 0x80)]);
    const logSets: unknown[][] = [
      [],
      [[bytes(20, 0x11), [], new Uint8Array(0)]],
      [[bytes(20, 0x22), [bytes(32, 1), bytes(32, 2), bytes(32, 3)], bytes(32, 9)]],
      ...datas.map((d) => [[bytes(20, 0x33), [bytes(32, 4)], d]]),
      Array.from({ length: 40 }, (_, i) => [bytes(20, i), [bytes(32, i), bytes(32, i + 1)], bytes(i * 3, i)]),
    ];
    const firsts: Array<Pick<BuiltReceipt, 'status' | 'stateRoot'>> = [
      { status: 1 },
      { status: 0 },
      { stateRoot: bytes(32, 0xab) },
    ];
    let checked = 0;
    for (const first of firsts)
      for (const gas of [0n, 1n, 127n, 128n, 21_000n, 30_000_000n, 2n ** 64n - 1n])
        for (const logs of logSets)
          for (const type of [0, 1, 2, 3, 4]) {
            const receipt = {
              ...first,
              cumulativeBlockGasUsed: gas,
              bitvector: bytes(256, gas % 7n === 0n ? 0 : 5),
              logs,
            };
            const expected = encodeReceipt(receipt as Parameters<typeof encodeReceipt>[0], type);
            const actual = encodeBuiltReceipt(receipt, type);
            // Compared as buffers: element-wise equality of large arrays is slow in the matcher.
            if (Buffer.compare(actual, expected) !== 0) expect(actual).toEqual(expected);
            checked++;
          }
    expect(checked).toBe(3 * 7 * logSets.length * 5);
  });
});
