/**
 * Poll filters: eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter,
 * eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter (besu-facts §9). Installing past the
 * filter limit throws `FilterLimitError`, answered by rpc/errors.ts.
 */

import { queryLogs } from '../../../filters/logQuery.js';
import { compileLogQuery } from '../../../filters/logs.js';
import type { FilterManager } from '../../../filters/manager.js';
import {
  FILTER_NOT_FOUND,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  LOGS_FILTER_NOT_FOUND,
  RpcError,
} from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { formatLogs } from '../../format/log.js';
import { type LogFilterParams, logFilter, logScopeOf } from '../../params/logFilter.js';
import { type Decoder, decoder } from '../../params.js';
import type { Services } from '../../services.js';
import { defineMethod, required } from '../define.js';
import type { RpcMethod } from '../types.js';

function manager(services: Services): FilterManager {
  if (!services.filters) throw new RpcError(INTERNAL_ERROR);
  return services.filters;
}

/** A filter id: `0x` and hex digits. */
const filterId: Decoder<string> = decoder(INVALID_PARAMS, (value) =>
  typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value) ? value : undefined,
);

export const ethNewFilter = defineMethod({
  name: 'eth_newFilter',
  group: 'ETH',
  params: [required(logFilter)],
  handler([f], { services }) {
    const toBlock = f.toBlock?.kind === 'number' ? f.toBlock.number : undefined;
    return manager(services).newLogFilter({ query: compileLogQuery(f.query), toBlock, request: f });
  },
});

export const ethNewBlockFilter = defineMethod({
  name: 'eth_newBlockFilter',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => manager(services).newBlockFilter(),
});

export const ethNewPendingTransactionFilter = defineMethod({
  name: 'eth_newPendingTransactionFilter',
  group: 'ETH',
  params: [],
  handler: (_args, { services }) => manager(services).newPendingTransactionFilter(),
});

export const ethGetFilterChanges = defineMethod({
  name: 'eth_getFilterChanges',
  group: 'ETH',
  params: [required(filterId)],
  handler([id], { services }) {
    const changes = manager(services).changes(id);
    if (!changes) throw new RpcError(FILTER_NOT_FOUND);
    if (changes.kind === 'log') return formatLogs(changes.logs);
    return changes.hashes.map(bytes);
  },
});

export const ethGetFilterLogs = defineMethod({
  name: 'eth_getFilterLogs',
  group: 'ETH',
  params: [required(filterId)],
  handler([id], { services }) {
    const f = manager(services).get(id);
    if (f?.kind !== 'log') throw new RpcError(LOGS_FILTER_NOT_FOUND);
    const chain = services.chain;
    const scope = logScopeOf(chain, f.spec.request as LogFilterParams);
    // A filter's logs are not bounded by --rpc-max-logs-range (the filter was accepted when installed).
    return formatLogs(queryLogs(chain, scope, f.spec.query, { maxRange: 0 }, services.logBloomCache));
  },
});

export const ethUninstallFilter = defineMethod({
  name: 'eth_uninstallFilter',
  group: 'ETH',
  params: [required(filterId)],
  handler: ([id], { services }) => manager(services).uninstall(id),
});

export const filterMethods: RpcMethod[] = [
  ethNewFilter,
  ethNewBlockFilter,
  ethNewPendingTransactionFilter,
  ethGetFilterChanges,
  ethGetFilterLogs,
  ethUninstallFilter,
];
