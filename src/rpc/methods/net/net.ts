/** net_version (decimal network id), net_listening, net_peerCount, net_enode, net_services. */
import { P2P_DISABLED, P2P_NETWORK_NOT_RUNNING, RpcError } from '../../errors.js';
import { quantity } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';

export const netVersion: RpcMethod = {
  name: 'net_version',
  group: 'NET',
  handler: (_params, { services }) => services.networkId.toString(10),
};

/** Whether the P2P listener accepts connections (false with P2P disabled). */
export const netListening: RpcMethod = {
  name: 'net_listening',
  group: 'NET',
  handler: (_params, { services }) => services.network?.host.listening ?? false,
};

export const netPeerCount: RpcMethod = {
  name: 'net_peerCount',
  group: 'NET',
  handler: (_params, { services }) => quantity(services.peerCount()),
};

export const netEnode: RpcMethod = {
  name: 'net_enode',
  group: 'NET',
  handler: (_params, { services }) => {
    const network = services.network;
    if (!network) throw new RpcError(P2P_DISABLED);
    if (!network.host.listening) throw new RpcError(P2P_NETWORK_NOT_RUNNING);
    return network.host.enode;
  },
};

/** Only the enabled services, each `{host, port}` with the port as a decimal string (Besu's shape). */
export const netServices: RpcMethod = {
  name: 'net_services',
  group: 'NET',
  handler: (_params, { services }) => {
    const out: Record<string, { host: string; port: string }> = {};
    for (const key of ['jsonrpc', 'ws', 'p2p', 'metrics', 'graphQL'] as const) {
      const e = services.endpoints[key];
      if (e) out[key] = { host: e.host, port: String(e.port) };
    }
    return out;
  },
};

export const netMethods: RpcMethod[] = [netVersion, netListening, netPeerCount, netEnode, netServices];
