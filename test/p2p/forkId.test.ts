/** EIP-2124: the fork ids a mainnet node announces and the validation rules, on the EIP's own vectors. */
import { describe, expect, it } from 'vitest';
import { type ForkId, ForkIdService } from '../../src/chain/forkId.js';

const MAINNET_GENESIS = Uint8Array.from(
  Buffer.from('d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3', 'hex'),
);
// Homestead, DAO, Tangerine Whistle, Spurious Dragon, Byzantium, Constantinople+Petersburg, Istanbul,
// Muir Glacier (the list the EIP's vectors were computed with).
const service = new ForkIdService(MAINNET_GENESIS, {
  blocks: [1150000n, 1920000n, 2463000n, 2675000n, 4370000n, 7280000n, 9069000n, 9200000n],
  timestamps: [],
});
const id = (hash: string, next: bigint): ForkId => ({
  hash: Uint8Array.from(Buffer.from(hash, 'hex')),
  next,
});
const hex = (f: ForkId) => ({ hash: Buffer.from(f.hash).toString('hex'), next: f.next });

describe('fork id service', () => {
  it('announces the EIP-2124 mainnet ids', () => {
    expect(hex(service.forkIdAt(0n, 0n))).toEqual({ hash: 'fc64ec04', next: 1150000n });
    expect(hex(service.forkIdAt(1149999n, 0n))).toEqual({ hash: 'fc64ec04', next: 1150000n });
    expect(hex(service.forkIdAt(1150000n, 0n))).toEqual({ hash: '97c2c34c', next: 1920000n });
    expect(hex(service.forkIdAt(4370000n, 0n))).toEqual({ hash: 'a00bc324', next: 7280000n });
    expect(hex(service.forkIdAt(7280000n, 0n))).toEqual({ hash: '668db0af', next: 9069000n });
    expect(hex(service.forkIdAt(9200000n, 0n))).toEqual({ hash: 'e029e991', next: 0n });
  });

  it('validates remote ids by the four rules', () => {
    const head = 7987396n;
    // Same fork, no or future next fork.
    expect(service.validate(id('668db0af', 0n), head, 0n)).toBe('ok');
    expect(service.validate(id('668db0af', 9069000n), head, 0n)).toBe('ok');
    // Same fork, remote announces a fork the local head has passed.
    expect(service.validate(id('668db0af', 7987396n), head, 0n)).toBe('local-incompatible-or-stale');
    // Remote behind (Byzantium) but knows Petersburg is next.
    expect(service.validate(id('a00bc324', 7280000n), head, 0n)).toBe('ok');
    // Remote behind and does not know the next fork.
    expect(service.validate(id('a00bc324', 0n), head, 0n)).toBe('remote-stale');
    // Remote ahead (Istanbul): the local node is behind, still compatible.
    expect(service.validate(id('879d6e30', 0n), head, 0n)).toBe('ok');
    // Unknown fork hash.
    expect(service.validate(id('afec6b27', 0n), head, 0n)).toBe('local-incompatible-or-stale');
  });
});
