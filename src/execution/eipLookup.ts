/**
 * `Common.isActivatedEIP` scans the array of active EIPs on every call, and the interpreter asks
 * it at least twice per opcode, mostly about EIPs that are not active (so the scan runs to the
 * end): measured here as a third of the time of a 1M-gas loop. This gives one Common a lookup in
 * a set built from that same array, rebuilt whenever Common replaces the array (a hardfork
 * change), so the answers are the library's own.
 */
import type { Common } from '@ethereumjs/common';

export function useFastEipLookup(common: Common): void {
  const source = common as unknown as { _activatedEIPsCache: number[] };
  let from: number[] | undefined;
  let active = new Set<number>();
  // Not enumerable, so `Common.copy()` (Object.assign) does not carry it into copies.
  Object.defineProperty(common, 'isActivatedEIP', {
    configurable: true,
    value: (eip: number): boolean => {
      const list = source._activatedEIPsCache;
      if (list !== from) {
        from = list;
        active = new Set(list);
      }
      return active.has(eip);
    },
  });
}
