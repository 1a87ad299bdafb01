/**
 * Two `Common` questions the EVM and the transaction classes ask over and over are answered by
 * linear scans: `isActivatedEIP` searches the array of active EIPs (the interpreter asks at least
 * twice per opcode, mostly about EIPs that are not active, so the scan runs to the end: measured
 * here as a third of the time of a 1M-gas loop), and `gteHardfork` rebuilds and walks the list of
 * hardforks (several times per call: intrinsic gas, receipts, journal clean-up). These memoise the
 * library's own answers on one Common, and start over whenever the inputs change (Common replaces
 * its EIP array on a hardfork change; the hardfork is part of the `gteHardfork` key).
 */
import type { Common } from '@ethereumjs/common';

interface CommonInternals {
  _activatedEIPsCache: number[];
  _hardfork: string;
}

export function useFastCommonLookups(common: Common): void {
  const inner = common as unknown as CommonInternals;
  let eipsFrom: number[] | undefined;
  // EIP numbers are small integers: a byte per number answers with one indexed load.
  let active = new Uint8Array(0);
  const isActivatedEIP = (eip: number): boolean => {
    const list = inner._activatedEIPsCache;
    if (list !== eipsFrom) {
      eipsFrom = list;
      active = new Uint8Array(Math.max(0, ...list) + 1);
      for (const n of list) active[n] = 1;
    }
    return active[eip] === 1;
  };
  const gteOf = common.gteHardfork.bind(common);
  let gteAt: string | undefined;
  const gte = new Map<string, boolean>();
  const gteHardfork = (hardfork: string): boolean => {
    if (inner._hardfork !== gteAt) {
      gteAt = inner._hardfork;
      gte.clear();
    }
    let answer = gte.get(hardfork);
    if (answer === undefined) {
      answer = gteOf(hardfork);
      gte.set(hardfork, answer);
    }
    return answer;
  };
  // Not enumerable, so `Common.copy()` (Object.assign) does not carry them into copies.
  Object.defineProperties(common, {
    isActivatedEIP: { configurable: true, value: isActivatedEIP },
    gteHardfork: { configurable: true, value: gteHardfork },
  });
}
