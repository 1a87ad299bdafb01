/**
 * Every transaction object copies its Common and re-merges the transaction parameter tables into the
 * copy: most of the cost of decoding a transaction, and much of its memory. Code that decodes many
 * transactions of one fork hands them one Common instead: `copy()` returns it as it is, and parameter
 * tables it has merged once are not merged again.
 *
 * `fixHardfork` makes moving the shared Common to another fork an error, for readers whose objects
 * live on (decoded blocks in a cache); the pool leaves it off, because the VM moves a pooled
 * transaction's Common to the fork of the block executing it, which is the one the pool decoded for.
 */
import type { Common } from '@ethereumjs/common';

export function shareCommon(common: Common, opts: { fixHardfork?: boolean } = {}): Common {
  const merged = new WeakSet<object>();
  const updateParams = common.updateParams.bind(common);
  common.copy = () => common;
  common.updateParams = (params) => {
    if (merged.has(params)) return common;
    merged.add(params);
    return updateParams(params);
  };
  if (opts.fixHardfork) {
    const fixed = common.hardfork();
    const refuse = (hardfork: string) => {
      if (hardfork !== fixed) throw new Error(`shared Common is fixed at ${fixed}, not ${hardfork}`);
    };
    const setHardfork = common.setHardfork.bind(common);
    common.setHardfork = (hardfork) => {
      refuse(hardfork);
      return setHardfork(hardfork);
    };
    const setHardforkBy = common.setHardforkBy.bind(common);
    common.setHardforkBy = (opts) => {
      refuse(common.getHardforkBy(opts));
      return setHardforkBy(opts);
    };
  }
  return common;
}
