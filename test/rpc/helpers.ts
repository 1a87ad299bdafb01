import { request } from 'node:http';
import { createDispatcher, type Dispatcher } from '../../src/rpc/dispatch.js';
import { RpcError, TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE } from '../../src/rpc/errors.js';
import type { RpcMethod } from '../../src/rpc/methods/types.js';
import type { Services } from '../../src/rpc/services.js';

export const services = {} as Services;

export const testMethods: RpcMethod[] = [
  { name: 'eth_blockNumber', group: 'ETH', handler: () => '0x10' },
  { name: 'eth_chainId', group: 'ETH', handler: async () => '0x539' },
  { name: 'eth_echo', group: 'ETH', handler: (params) => params },
  { name: 'eth_nothing', group: 'ETH', handler: () => undefined },
  {
    name: 'eth_throws',
    group: 'ETH',
    handler: () => {
      throw new Error('boom');
    },
  },
  {
    name: 'eth_rejects',
    group: 'ETH',
    handler: async () => {
      throw new TypeError('async boom');
    },
  },
  {
    name: 'eth_rpcError',
    group: 'ETH',
    handler: () => {
      throw RpcError.withDetail(TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE, 'detail here', { extra: 1 });
    },
  },
  { name: 'eth_bigint', group: 'ETH', handler: () => 1n },
  { name: 'net_version', group: 'NET', handler: () => '2018' },
  { name: 'admin_peers', group: 'ADMIN', handler: () => [] },
  { name: 'debug_custom', group: 'DEBUG', handler: () => 'dbg' },
];

export function testDispatcher(
  opts: { groups?: string[]; maxBatchSize?: number; methods?: RpcMethod[] } = {},
): Dispatcher {
  return createDispatcher({
    methods: opts.methods ?? testMethods,
    enabledGroups: opts.groups ?? ['ETH', 'NET', 'WEB3'],
    maxBatchSize: opts.maxBatchSize ?? 5,
  });
}

export interface RawResponse {
  status: number;
  statusMessage: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with full control over headers (fetch forbids setting Host). */
export function raw(
  port: number,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: opts.method ?? 'POST',
        path: opts.path ?? '/',
        headers: opts.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
