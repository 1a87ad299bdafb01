/**
 * net_services: the enabled services and where they listen, `{ name: { host, port } }` with the port
 * as a decimal string, in Besu's order (jsonrpc, ws, p2p, metrics, graphQL).
 */
import type { RpcMethod } from '../types.js';

const ORDER = ['jsonrpc', 'ws', 'p2p', 'metrics', 'graphQL'];

export const netServices: RpcMethod = {
  name: 'net_services',
  group: 'NET',
  handler(_params, { services }) {
    const endpoints = services.endpoints ?? {};
    const out: Record<string, { host: string; port: string }> = {};
    for (const name of ORDER) {
      const e = endpoints[name];
      if (e) out[name] = { host: e.host, port: String(e.port) };
    }
    return out;
  },
};
