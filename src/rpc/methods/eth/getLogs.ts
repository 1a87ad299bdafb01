/**
 * eth_getLogs: logs of one block (`blockHash`) or of a canonical range (`fromBlock`/`toBlock`,
 * default latest), filtered by address and topics. The log query service (`filters/logQuery.ts`)
 * checks the range and the --rpc-max-logs-range limit and matches; the answer is built from the
 * node's shared log text cache.
 */
import { queryLogs } from '../../../filters/logQuery.js';
import { compileLogQuery } from '../../../filters/logs.js';
import { logFilter, logScopeOf } from '../../params/logFilter.js';
import { defineMethod, required } from '../define.js';

export const ethGetLogs = defineMethod({
  name: 'eth_getLogs',
  group: 'ETH',
  params: [required(logFilter)],
  handler([filter], { services }) {
    const chain = services.chain;
    const logs = queryLogs(
      chain,
      logScopeOf(chain, filter),
      compileLogQuery(filter.query),
      { maxRange: services.config.rpcMaxLogsRange },
      services.logBloomCache,
    );
    return services.logCache.answer(logs);
  },
});
