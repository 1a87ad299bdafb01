/** admin_addPeer, admin_removePeer, admin_peers: static peers and the connected peers (Besu's shapes). */
import { type Enode, InvalidEnodeError, parseEnode } from '../../../p2p/enode.js';
import type { NetworkService } from '../../../p2p/network.js';
import {
  CANT_CONNECT_TO_LOCAL_PEER,
  DNS_NOT_ENABLED,
  ENODE_ID_INVALID,
  INVALID_ENODE_PARAMS,
  INVALID_PARAMS,
  P2P_DISABLED,
  PARSE_ERROR,
  RpcError,
} from '../../errors.js';
import type { Services } from '../../services.js';
import type { RpcMethod } from '../types.js';

export function networkOf(services: Services): NetworkService {
  if (!services.network) throw new RpcError(P2P_DISABLED);
  return services.network;
}

function enodeParam(params: readonly unknown[], network: NetworkService): Enode {
  if (params.length !== 1) throw new RpcError(INVALID_PARAMS);
  const url = params[0];
  if (typeof url !== 'string') throw new RpcError(INVALID_ENODE_PARAMS);
  let enode: Enode;
  try {
    enode = parseEnode(url);
  } catch (err) {
    if (err instanceof InvalidEnodeError && err.problem === 'node-id') throw new RpcError(ENODE_ID_INVALID);
    if (err instanceof InvalidEnodeError && err.problem === 'dns') throw new RpcError(DNS_NOT_ENABLED);
    throw new RpcError(PARSE_ERROR);
  }
  if (enode.id === network.host.nodeId) throw new RpcError(CANT_CONNECT_TO_LOCAL_PEER);
  return enode;
}

export const adminAddPeer: RpcMethod = {
  name: 'admin_addPeer',
  group: 'ADMIN',
  handler: (params, { services }) => {
    const network = networkOf(services);
    return network.addPeer(enodeParam(params, network));
  },
};

export const adminRemovePeer: RpcMethod = {
  name: 'admin_removePeer',
  group: 'ADMIN',
  handler: (params, { services }) => {
    const network = networkOf(services);
    return network.removePeer(enodeParam(params, network));
  },
};

const quantity = (n: bigint | number) => `0x${n.toString(16)}`;

export const adminPeers: RpcMethod = {
  name: 'admin_peers',
  group: 'ADMIN',
  handler: (_params, { services }) =>
    networkOf(services)
      .peers()
      .map(({ conn, eth }) => ({
        version: quantity(conn.p2pVersion),
        name: conn.clientId,
        caps: conn.capabilities,
        network: {
          localAddress: conn.localAddress,
          remoteAddress: conn.remoteAddress,
          inbound: conn.inbound,
        },
        port: quantity(conn.listenPort),
        id: `0x${conn.id}`,
        protocols: eth
          ? {
              eth: {
                difficulty: quantity(eth.td),
                head: `0x${Buffer.from(eth.headHash).toString('hex')}`,
                version: eth.version,
              },
            }
          : {},
        enode: conn.enode,
      })),
};
