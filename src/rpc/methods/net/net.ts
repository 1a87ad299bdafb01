/** net_version (decimal network id), net_listening, net_peerCount. */
import { quantity } from '../../format/hex.js';
import { defineMethod } from '../define.js';
import type { RpcMethod } from '../types.js';

export const netVersion = defineMethod({
  name: 'net_version',
  group: 'NET',
  params: [],
  handler: (_args, { services }) => services.networkId.toString(10),
});

export const netListening = defineMethod({
  name: 'net_listening',
  group: 'NET',
  params: [],
  handler: () => true,
});

export const netPeerCount = defineMethod({
  name: 'net_peerCount',
  group: 'NET',
  params: [],
  handler: (_args, { services }) => quantity(services.peerCount()),
});

export const netMethods: RpcMethod[] = [netVersion, netListening, netPeerCount];
