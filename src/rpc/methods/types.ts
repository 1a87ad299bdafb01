/**
 * The shape every JSON-RPC method file exports. A method is a name, the API group that enables it,
 * and a handler that receives the raw `params` array and the request context. Method files declare
 * their parameters with `defineMethod` (`./define.ts`), which decodes them before the handler runs;
 * handlers call services and format results with `rpc/format/`.
 */

import { RPC_API_GROUPS, type RpcApiGroup } from '../../config/types.js';
import type { Services } from '../services.js';
import type { SubscriptionConnection, SubscriptionManager } from '../subscriptions/manager.js';

/** The API groups (Besu's enum names), declared once with the options that enable them. */
export const API_GROUPS = RPC_API_GROUPS;
export type ApiGroup = RpcApiGroup;

/** Who sent the request, when authentication is on. */
export interface AuthenticatedUser {
  username?: string;
  permissions: readonly string[];
  privacyPublicKey?: string;
}

/** The WebSocket connection a request came in on, with the node's subscription manager. */
export interface ConnectionContext {
  connection: SubscriptionConnection;
  /** Absent when the WS server runs without an event source. */
  subscriptions?: SubscriptionManager;
}

/**
 * One request's context: the node's services (built once, shared by every transport and connection)
 * and, beside them, the facts of this request.
 */
export interface MethodContext {
  services: Services;
  transport: 'http' | 'ws' | 'engine';
  user?: AuthenticatedUser;
  /** Present on WebSocket requests. */
  connection?: ConnectionContext;
}

export interface RpcMethod {
  name: string;
  group: ApiGroup;
  /**
   * A plugin's method: enabled, as in Besu, when an entry of the API list is a prefix of its name
   * (case-insensitive), i.e. by naming the plugin's namespace; `group` is then not consulted.
   */
  plugin?: boolean;
  handler(params: readonly unknown[], ctx: MethodContext): unknown | Promise<unknown>;
}
