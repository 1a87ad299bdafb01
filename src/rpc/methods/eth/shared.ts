/**
 * Small pieces the eth_ method files share: how blocks are formatted on this chain and the
 * "default to latest" block parameter.
 */

import type { FormatBlockOptions } from '../../format/block.js';
import { ResponseCache } from '../../rawJson.js';
import type { Services } from '../../services.js';

const optionsCache = new WeakMap<Services, FormatBlockOptions>();
const responseCaches = new WeakMap<Services, ResponseCache>();

/** Characters of serialised block answers kept per node (about 64 MiB of text). */
const RESPONSE_CACHE_CHARS = 64 * 1024 * 1024;

/**
 * Serialised answers about immutable data, keyed by what identifies them (a block hash and the
 * formatting asked for): a block read again is answered without decoding or formatting it.
 */
export function responseCache(services: Services): ResponseCache {
  let cache = responseCaches.get(services);
  if (!cache) {
    cache = new ResponseCache(RESPONSE_CACHE_CHARS);
    responseCaches.set(services, cache);
  }
  return cache;
}

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
