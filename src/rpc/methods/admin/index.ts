/** The ADMIN group's networking methods. */
import type { RpcMethod } from '../types.js';
import { adminNodeInfo } from './nodeInfo.js';
import { adminAddPeer, adminPeers, adminRemovePeer } from './peers.js';

export const adminMethods: RpcMethod[] = [adminAddPeer, adminRemovePeer, adminPeers, adminNodeInfo];
