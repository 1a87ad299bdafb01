/**
 * `eth_subscribe` and `eth_unsubscribe`. They exist only on WebSocket connections: the WS server puts
 * the connection and the node's SubscriptionManager in each request's context (`ctx.connection`).
 * Register them only in the WS dispatcher; over HTTP the dispatcher answers the known-but-unregistered
 * names with -32604, and if they are reached without a connection anyway they answer the same.
 *
 * Errors as Besu: a request that cannot be mapped (unknown type, bad filter, bad id) ⇒ -32600 Invalid
 * Request; an id that is not a live subscription of this connection ⇒ -32000 Subscription not found
 * (the mapping lives in rpc/errors.ts).
 */
import { INVALID_REQUEST, METHOD_NOT_ENABLED, RpcError } from '../errors.js';
import type { MethodContext, RpcMethod } from '../methods/types.js';
import type { SubscriptionConnection, SubscriptionManager } from './manager.js';

function subscriptionsOf(ctx: MethodContext): {
  connection: SubscriptionConnection;
  manager: SubscriptionManager;
} {
  const ws = ctx.connection;
  if (ctx.transport !== 'ws' || ws === undefined) throw new RpcError(METHOD_NOT_ENABLED);
  // A WS server started without a subscription manager has no event source to subscribe to.
  if (ws.subscriptions === undefined) throw new RpcError(INVALID_REQUEST);
  return { connection: ws.connection, manager: ws.subscriptions };
}

export const ethSubscribe: RpcMethod = {
  name: 'eth_subscribe',
  group: 'ETH',
  handler(params, ctx) {
    const { connection, manager } = subscriptionsOf(ctx);
    return manager.subscribe(connection, params);
  },
};

export const ethUnsubscribe: RpcMethod = {
  name: 'eth_unsubscribe',
  group: 'ETH',
  handler(params, ctx) {
    const { connection, manager } = subscriptionsOf(ctx);
    return manager.unsubscribe(connection, params);
  },
};

export const subscriptionMethods: readonly RpcMethod[] = [ethSubscribe, ethUnsubscribe];
