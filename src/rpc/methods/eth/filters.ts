/**
 * Poll filters: eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter,
 * eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter (besu-facts §9).
 */

import { blockLogs, canonicalLogs, compileLogQuery } from '../../../filters/logs.js';
import type { FilterManager } from '../../../filters/manager.js';
import {
  BLOCK_NOT_FOUND,
  FILTER_NOT_FOUND,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  LOGS_FILTER_NOT_FOUND,
  RpcError,
} from '../../errors.js';
import { bytes } from '../../format/hex.js';
import { formatLogs } from '../../format/log.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';
import { type LogFilterParams, logRange, parseLogFilter } from './getLogs.js';

function manager(services: Services): FilterManager {
  if (!services.filters) throw new RpcError(INTERNAL_ERROR);
  return services.filters;
}

function filterId(params: readonly unknown[]): string {
  const id = params[0];
  if (typeof id !== 'string' || !/^0x[0-9a-fA-F]+$/.test(id)) throw new RpcError(INVALID_PARAMS);
  return id;
}

export const ethNewFilter: RpcMethod = {
  name: 'eth_newFilter',
  group: 'ETH',
  handler(params, { services }) {
    const f = parseLogFilter(params[0]);
    const toBlock = f.toBlock?.kind === 'number' ? f.toBlock.number : undefined;
    const m = manager(services);
    return m.newLogFilter({ query: compileLogQuery(f.query), toBlock, request: f });
  },
};

export const ethNewBlockFilter: RpcMethod = {
  name: 'eth_newBlockFilter',
  group: 'ETH',
  handler(_params, { services }) {
    const m = manager(services);
    return m.newBlockFilter();
  },
};

export const ethNewPendingTransactionFilter: RpcMethod = {
  name: 'eth_newPendingTransactionFilter',
  group: 'ETH',
  handler(_params, { services }) {
    const m = manager(services);
    return m.newPendingTransactionFilter();
  },
};

export const ethGetFilterChanges: RpcMethod = {
  name: 'eth_getFilterChanges',
  group: 'ETH',
  handler(params, { services }) {
    const changes = manager(services).changes(filterId(params));
    if (!changes) throw new RpcError(FILTER_NOT_FOUND);
    if (changes.kind === 'log') return formatLogs(changes.logs);
    return changes.hashes.map(bytes);
  },
};

export const ethGetFilterLogs: RpcMethod = {
  name: 'eth_getFilterLogs',
  group: 'ETH',
  handler(params, { services }) {
    const f = manager(services).get(filterId(params));
    if (!f || f.kind !== 'log') throw new RpcError(LOGS_FILTER_NOT_FOUND);
    const request = f.spec.request as LogFilterParams;
    const chain = services.chain;
    if (request.blockHash) {
      const header = chain.getHeader(request.blockHash);
      if (!header) throw new RpcError(BLOCK_NOT_FOUND);
      return formatLogs(blockLogs(chain, header, f.spec.query));
    }
    const { from, to } = logRange(chain, request);
    return formatLogs(canonicalLogs(chain, from, to, f.spec.query));
  },
};

export const ethUninstallFilter: RpcMethod = {
  name: 'eth_uninstallFilter',
  group: 'ETH',
  handler(params, { services }) {
    return manager(services).uninstall(filterId(params));
  },
};

export const filterMethods: RpcMethod[] = [
  ethNewFilter,
  ethNewBlockFilter,
  ethNewPendingTransactionFilter,
  ethGetFilterChanges,
  ethGetFilterLogs,
  ethUninstallFilter,
];
