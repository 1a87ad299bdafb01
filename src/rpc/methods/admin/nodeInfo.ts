/** admin_nodeInfo: the node's enode, addresses, ports and its `eth` protocol facts (Besu's member order). */
import { forkSchedule, isForkActive } from '../../../config/genesis.js';
import type { RpcMethod } from '../types.js';
import { networkOf } from './peers.js';

function activeFork(services: Parameters<RpcMethod['handler']>[1]['services']): string {
  const spec = services.config.genesis;
  const head = services.chain.headHeader();
  let name = 'frontier';
  for (const f of forkSchedule(spec))
    if (isForkActive(spec, f.name, head.number, head.timestamp)) name = f.name;
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export const adminNodeInfo: RpcMethod = {
  name: 'admin_nodeInfo',
  group: 'ADMIN',
  handler: (_params, { services }) => {
    const network = networkOf(services);
    const host = network.host;
    const head = services.chain.head();
    const genesis = services.chain.genesisHash() as Uint8Array;
    const { listener, discovery } = host.ports;
    const ip = host.advertisedHost;
    return {
      enode: host.enode,
      ip,
      listenAddr: `${ip}:${listener}`,
      id: host.nodeId,
      name: services.clientVersion,
      ports: { discovery: discovery || listener, listener },
      protocols: {
        eth: {
          config: services.config.genesis.config.raw,
          difficulty: Number(services.chain.getTotalDifficulty(head.hash) ?? 0n),
          genesis: `0x${Buffer.from(genesis).toString('hex')}`,
          head: `0x${Buffer.from(head.hash).toString('hex')}`,
          network: Number(services.networkId),
        },
      },
      activeFork: activeFork(services),
    };
  },
};
