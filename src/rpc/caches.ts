/**
 * The JSON-RPC layer's shared state: serialised answers and the block format of this chain. Built once
 * per node by the composition root and reached through `Services`, so HTTP, every WebSocket connection
 * and every later adapter read and warm the same caches.
 */
import type { Config } from '../config/types.js';
import type { FormatBlockOptions } from './format/block.js';
import { LogJsonCache } from './format/log.js';
import { ResponseCache } from './rawJson.js';

/** Characters of serialised block answers kept per node (about 64 MiB of text). */
export const RESPONSE_CACHE_CHARS = 64 * 1024 * 1024;

export interface RpcCaches {
  responseCache: ResponseCache;
  logCache: LogJsonCache;
  blockFormat: FormatBlockOptions;
}

export function createRpcCaches(config: Config): RpcCaches {
  return {
    responseCache: new ResponseCache(RESPONSE_CACHE_CHARS),
    logCache: new LogJsonCache(),
    // Blocks carry `totalDifficulty` only on chains that never reach the merge (no terminal total
    // difficulty in the genesis): Besu's pre-merge blocks show it, the merge-aware clients drop it.
    blockFormat: { totalDifficulty: config.genesis.config.terminalTotalDifficulty === undefined },
  };
}
