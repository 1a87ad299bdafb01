/** net_version (decimal network id), net_listening, net_peerCount. */
import { quantity } from '../../format/hex.js';
import type { RpcMethod } from '../types.js';

export const netVersion: RpcMethod = {
  name: 'net_version',
  group: 'NET',
  handler: (_params, { services }) => services.networkId.toString(10),
};

export const netListening: RpcMethod = {
  name: 'net_listening',
  group: 'NET',
  handler: () => true,
};

export const netPeerCount: RpcMethod = {
  name: 'net_peerCount',
  group: 'NET',
  handler: (_params, { services }) => quantity(services.peerCount()),
};

export const netMethods: RpcMethod[] = [netVersion, netListening, netPeerCount];
