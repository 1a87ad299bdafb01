/** net_version (decimal network id), net_listening, net_peerCount, net_enode, net_services. */
import { P2P_DISABLED, P2P_NETWORK_NOT_RUNNING, RpcError } from '../../errors.js';
import { quantity } from '../../format/hex.js';
import { defineMethod } from '../define.js';
import type { RpcMethod } from '../types.js';

export const netVersion = defineMethod({
  name: 'net_version',
  group: 'NET',
  params: [],
  handler: (_args, { services }) => services.networkId.toString(10),
});

/** Whether the P2P listener accepts connections (false with P2P disabled). */
export const netListening = defineMethod({
  name: 'net_listening',
  group: 'NET',
  params: [],
  handler: (_args, { services }) => services.network?.host.listening ?? false,
});

export const netPeerCount = defineMethod({
  name: 'net_peerCount',
  group: 'NET',
  params: [],
  handler: (_args, { services }) => quantity(services.peerCount()),
});

export const netEnode = defineMethod({
  name: 'net_enode',
  group: 'NET',
  params: [],
  handler: (_args, { services }) => {
    const network = services.network;
    if (!network) throw new RpcError(P2P_DISABLED);
    if (!network.host.listening) throw new RpcError(P2P_NETWORK_NOT_RUNNING);
    return network.host.enode;
  },
});

/** Only the enabled services, each `{host, port}` with the port as a decimal string (Besu's shape). */
export const netServices = defineMethod({
  name: 'net_services',
  group: 'NET',
  params: [],
  handler: (_args, { services }) => {
    const out: Record<string, { host: string; port: string }> = {};
    for (const key of ['jsonrpc', 'ws', 'p2p', 'metrics', 'graphQL'] as const) {
      const e = services.endpoints[key];
      if (e) out[key] = { host: e.host, port: String(e.port) };
    }
    return out;
  },
});

export const netMethods: RpcMethod[] = [netVersion, netListening, netPeerCount, netEnode, netServices];
