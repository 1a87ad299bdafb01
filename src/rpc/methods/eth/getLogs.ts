/**
 * eth_getLogs: logs of one block (`blockHash`) or of a canonical range (`fromBlock`/`toBlock`,
 * default latest), filtered by address and topics. The log query service (`filters/logQuery.ts`)
 * checks the range and the --rpc-max-logs-range limit and matches; the answer is built from the
 * node's shared log text cache. A small answer is returned whole; once the text passes
 * STREAM_AFTER_CHARS the rest of the range is read and written as the transport takes it
 * (`StreamingResult`), so a wide query never holds its whole answer.
 */
import { queryLogBlocks } from '../../../filters/logQuery.js';
import { compileLogQuery } from '../../../filters/logs.js';
import { logFilter, logScopeOf } from '../../params/logFilter.js';
import { RawJson } from '../../rawJson.js';
import { StreamingResult } from '../../streaming.js';
import { defineMethod, required } from '../define.js';

/** Answer text gathered before the rest is streamed. */
const STREAM_AFTER_CHARS = 256 * 1024;
/** Blocks read between turns of the event loop while streaming. */
const BLOCKS_PER_TURN = 256;

export const ethGetLogs = defineMethod({
  name: 'eth_getLogs',
  group: 'ETH',
  params: [required(logFilter)],
  handler([filter], { services }) {
    const chain = services.chain;
    const blocks = queryLogBlocks(
      chain,
      logScopeOf(chain, filter),
      compileLogQuery(filter.query),
      { maxRange: services.config.rpcMaxLogsRange },
      services.logBloomCache,
    );
    const cache = services.logCache;
    let head = '[';
    let first = true;
    for (;;) {
      const next = blocks.next();
      // Read after the pieces are made: they are ASCII when every text the cache made is.
      if (next.done) return new RawJson(`${head}]`, cache.ascii);
      head += cache.piece(next.value, first);
      first = false;
      if (head.length >= STREAM_AFTER_CHARS) break;
    }
    return new StreamingResult(async (write) => {
      await write(head);
      let n = 0;
      for (;;) {
        const next = blocks.next();
        if (next.done) break;
        const wrote = write(cache.piece(next.value, false));
        if (wrote !== undefined) await wrote;
        if (++n % BLOCKS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await write(']');
    });
  },
});
