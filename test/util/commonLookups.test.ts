/**
 * The memoised Common lookups give the library's own answers, for every hardfork and after the
 * hardfork changes under them.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { describe, expect, it } from 'vitest';
import { useFastCommonLookups } from '../../src/util/commonLookups.js';

describe('useFastCommonLookups', () => {
  it('answers isActivatedEIP and gteHardfork as Common does, across hardfork changes', () => {
    const plain = new Common({ chain: Mainnet, hardfork: Hardfork.Chainstart });
    const fast = plain.copy();
    useFastCommonLookups(fast);
    const names = plain.hardforks().map((h) => h.name);
    // Walk forwards and back again, so both the EIP table and the memo must start over.
    for (const hf of [...names, ...[...names].reverse()]) {
      plain.setHardfork(hf);
      fast.setHardfork(hf);
      for (let eip = 0; eip <= 10_000; eip++) {
        if (fast.isActivatedEIP(eip) !== plain.isActivatedEIP(eip)) {
          expect.fail(`EIP ${eip} at ${hf}: ${fast.isActivatedEIP(eip)}`);
        }
      }
      for (const other of names)
        expect(fast.gteHardfork(other), `${hf} >= ${other}`).toBe(plain.gteHardfork(other));
    }
    fast.setHardfork(Hardfork.London);
    expect(fast.isActivatedEIP(1559)).toBe(true);
    fast.setHardfork(Hardfork.Berlin);
    expect(fast.isActivatedEIP(1559)).toBe(false);
    expect(fast.gteHardfork(Hardfork.London)).toBe(false);
    // Copies are plain Commons again (the lookups are not enumerable own properties).
    expect(Object.hasOwn(fast.copy(), 'isActivatedEIP')).toBe(false);
  });
});
