/**
 * The shape every JSON-RPC method file exports. A method is a name, the API group that enables it,
 * and a handler that receives the raw `params` array and the request context. Handlers validate their
 * params with `rpc/params.ts`, call services, and format results with `rpc/format/`.
 */

import { RPC_API_GROUPS, type RpcApiGroup } from '../../config/types.js';
import type { Services } from '../services.js';

/** The API groups (Besu's enum names), declared once with the options that enable them. */
export const API_GROUPS = RPC_API_GROUPS;
export type ApiGroup = RpcApiGroup;

/** Who sent the request, when authentication is on. */
export interface AuthenticatedUser {
  username?: string;
  permissions: readonly string[];
  privacyPublicKey?: string;
}

export interface MethodContext {
  services: Services;
  user?: AuthenticatedUser;
  transport: 'http' | 'ws' | 'engine';
}

export interface RpcMethod {
  name: string;
  group: ApiGroup;
  handler(params: readonly unknown[], ctx: MethodContext): unknown | Promise<unknown>;
}
