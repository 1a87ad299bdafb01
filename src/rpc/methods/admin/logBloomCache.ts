/**
 * The log bloom cache methods (besu-facts §7): admin_generateLogBloomCache `[from?, to?]` (no params: a
 * pure status query), admin_logsRemoveCache `[from?, to?]`, admin_logsRepairCache `[blockNumber?]`.
 */
import { LATEST_BLOCK, type LogBloomCache } from '../../../filters/bloomCache.js';
import {
  INTERNAL_ERROR,
  INVALID_BLOCK_NUMBER_PARAMS,
  INVALID_BLOCK_PARAMS,
  RpcError,
  type RpcErrorSpec,
} from '../../errors.js';
import { blockNumberParam } from '../../params.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

type Param = ReturnType<typeof blockNumberParam>;

function optionalBlock(value: unknown, error: RpcErrorSpec): Param | undefined {
  return value === undefined || value === null ? undefined : blockNumberParam(value, error);
}

function cacheOf(services: Services): LogBloomCache {
  if (!services.logBloomCache) throw new RpcError(INTERNAL_ERROR);
  return services.logBloomCache;
}

/** earliest ⇒ 0, a number ⇒ itself, the other tags ⇒ `other`. */
function numberOf(p: Param, other: bigint): bigint {
  if (p.kind === 'number') return p.number;
  return p.tag === 'earliest' ? 0n : other;
}

export const adminGenerateLogBloomCache: RpcMethod = {
  name: 'admin_generateLogBloomCache',
  group: 'ADMIN',
  handler(params, { services }) {
    const start = optionalBlock(params[0], INVALID_BLOCK_PARAMS);
    const stop = optionalBlock(params[1], INVALID_BLOCK_PARAMS);
    const from = start === undefined ? 0n : numberOf(start, LATEST_BLOCK);
    const to = stop === undefined ? (start === undefined ? -1n : LATEST_BLOCK) : numberOf(stop, LATEST_BLOCK);
    return cacheOf(services).requestCaching(from, to);
  },
};

export const adminLogsRemoveCache: RpcMethod = {
  name: 'admin_logsRemoveCache',
  group: 'ADMIN',
  handler(params, { services }) {
    const start = optionalBlock(params[0], INVALID_BLOCK_NUMBER_PARAMS);
    const stop = optionalBlock(params[1], INVALID_BLOCK_NUMBER_PARAMS);
    const chain = services.chain;
    const head = chain.head().number;
    const known = (n: bigint): bigint => {
      // Besu fails with an internal error on a block it does not have.
      if (n < 0n || chain.canonicalHash(n) === undefined) throw new RpcError(INTERNAL_ERROR);
      return n;
    };
    const resolve = (p: Param): bigint => (p.kind === 'number' ? known(p.number) : numberOf(p, head));
    const from = start === undefined ? 0n : resolve(start);
    const to = stop === undefined ? (start === undefined ? head : from) : resolve(stop);
    if (to < from) throw new RpcError(INVALID_BLOCK_NUMBER_PARAMS);
    cacheOf(services).removeSegments(from, to);
    return { Status: 'Cache Removed' };
  },
};

export const adminLogsRepairCache: RpcMethod = {
  name: 'admin_logsRepairCache',
  group: 'ADMIN',
  handler(params, { services }) {
    const raw = params[0];
    let block: bigint | undefined;
    if (raw !== undefined && raw !== null) {
      // A JSON number or a decimal string, as a Java Long.
      const text = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
      if (typeof text !== 'string' || !/^-?[0-9]+$/.test(text.trim())) {
        throw new RpcError(INVALID_BLOCK_NUMBER_PARAMS);
      }
      block = BigInt(text.trim());
      if (block < 0n || services.chain.canonicalHash(block) === undefined) throw new RpcError(INTERNAL_ERROR);
    }
    const status = cacheOf(services).repair(block ?? services.chain.head().number);
    return { Status: status };
  },
};

export const logBloomCacheMethods: RpcMethod[] = [
  adminGenerateLogBloomCache,
  adminLogsRemoveCache,
  adminLogsRepairCache,
];
