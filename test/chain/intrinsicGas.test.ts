import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createTx, getCalldataFloorGas } from '@ethereumjs/tx';
import { describe, expect, it } from 'vitest';
import { minimumGas } from '../../src/chain/intrinsicGas.js';
import { seededBytes } from '../helpers/seeded.js';

const bytes = seededBytes(7);

/** Calldata with runs of zero bytes among random ones, `length` long. */
function calldata(length: number): Uint8Array {
  const data = bytes(length);
  for (let i = 0; i < length; i += 5) data[i] = 0;
  return data;
}

const FORKS = [
  Hardfork.Chainstart,
  Hardfork.Homestead,
  Hardfork.Istanbul,
  Hardfork.Berlin,
  Hardfork.London,
  Hardfork.Shanghai,
  Hardfork.Cancun,
  Hardfork.Prague,
  Hardfork.Osaka,
];

describe('minimumGas', () => {
  it('gives the library intrinsic gas and calldata floor for every transaction type, fork, creation and call', () => {
    let compared = 0;
    for (const hardfork of FORKS) {
      const common = new Common({ chain: Mainnet, hardfork });
      const types = common.gteHardfork(Hardfork.London)
        ? [0, 1, 2]
        : common.gteHardfork(Hardfork.Berlin)
          ? [0, 1]
          : [0];
      for (const type of types) {
        for (const length of [0, 1, 31, 32, 33, 68, 1000]) {
          for (const to of [undefined, bytes(20)]) {
            const accessList =
              type === 0
                ? undefined
                : [
                    {
                      address: `0x${'11'.repeat(20)}`,
                      storageKeys: [`0x${'22'.repeat(32)}`, `0x${'00'.repeat(32)}`],
                    },
                    { address: `0x${'33'.repeat(20)}`, storageKeys: [] },
                  ];
            const tx = createTx(
              {
                type,
                to,
                data: calldata(length),
                gasLimit: 1_000_000n,
                accessList,
                maxFeePerGas: 10n,
                gasPrice: 10n,
              },
              { common },
            );
            const least = minimumGas(tx);
            expect(least.intrinsic, `${hardfork} type ${type} length ${length} to ${to !== undefined}`).toBe(
              tx.getIntrinsicGas(),
            );
            expect(least.floor, `${hardfork} type ${type} length ${length}`).toBe(getCalldataFloorGas(tx));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(200);
  });

  it('counts EIP-3860 initcode words only for a creation and EIP-7623 tokens as 1 per zero byte and 4 per other byte', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const data = new Uint8Array(33);
    data[0] = 1;
    const create = minimumGas(createTx({ type: 2, data, gasLimit: 100_000n }, { common }));
    // 21,000 + 32 zero bytes × 4 + 1 byte × 16 + 32,000 creation + 2 words × 2.
    expect(create.intrinsic).toBe(21_000n + 128n + 16n + 32_000n + 4n);
    // 21,000 + 10 × (32 + 4).
    expect(create.floor).toBe(21_000n + 360n);
    const call = minimumGas(createTx({ type: 2, data, to: bytes(20), gasLimit: 100_000n }, { common }));
    expect(call.intrinsic).toBe(21_000n + 128n + 16n);
  });

  it('follows a Common whose hardfork changes after its costs were first read', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.London });
    const create = () => createTx({ type: 2, data: new Uint8Array(64), gasLimit: 100_000n }, { common });
    expect(minimumGas(create()).intrinsic).toBe(21_000n + 64n * 4n + 32_000n);
    common.setHardfork(Hardfork.Prague);
    const tx = create();
    expect(minimumGas(tx)).toEqual({ intrinsic: tx.getIntrinsicGas(), floor: getCalldataFloorGas(tx) });
    expect(minimumGas(tx).intrinsic).toBe(21_000n + 64n * 4n + 32_000n + 2n * 2n);
  });
});
