/**
 * Small pieces the eth_ method files share: how blocks are formatted on this chain and the
 * "default to latest" block parameter.
 */

import type { FormatBlockOptions } from '../../format/block.js';
import type { Services } from '../../services.js';

const optionsCache = new WeakMap<Services, FormatBlockOptions>();

/**
 * Blocks carry `totalDifficulty` only on chains that never reach the merge (no terminal total
 * difficulty in the genesis): Besu's pre-merge blocks show it, the merge-aware clients drop it.
 */
export function blockFormatOptions(services: Services): FormatBlockOptions {
  let opts = optionsCache.get(services);
  if (!opts) {
    opts = { totalDifficulty: services.config.genesis.config.terminalTotalDifficulty === undefined };
    optionsCache.set(services, opts);
  }
  return opts;
}
