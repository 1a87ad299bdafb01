/**
 * `eth_subscribe` and `eth_unsubscribe`. They exist only on WebSocket connections: the WS server gives
 * each connection its own `services` object (inheriting from the node's) and binds it here to the
 * connection and the node's SubscriptionManager. Register them only in the WS dispatcher; over HTTP the dispatcher answers the
 * known-but-unregistered names with -32604, and if they are reached without a connection anyway they
 * answer the same.
 *
 * Errors as Besu: a request that cannot be mapped (unknown type, bad filter, bad id) ⇒ -32600 Invalid
 * Request; an id that is not a live subscription of this connection ⇒ -32000 Subscription not found.
 */
import { INVALID_REQUEST, METHOD_NOT_ENABLED, RpcError, SUBSCRIPTION_NOT_FOUND } from '../errors.js';
import type { MethodContext, RpcMethod } from '../methods/types.js';
import type { Services } from '../services.js';
import {
  InvalidSubscriptionRequestError,
  type SubscriptionConnection,
  type SubscriptionManager,
  SubscriptionNotFoundError,
} from './manager.js';

/** What the WS server binds to each connection's services object. */
export interface WsConnectionContext {
  connection: SubscriptionConnection;
  subscriptions?: SubscriptionManager;
}

const connections = new WeakMap<Services, WsConnectionContext>();

/** A services object for one WS connection: reads fall through to the node's services. */
export function servicesForConnection(services: Services, context: WsConnectionContext): Services {
  const own = Object.create(services) as Services;
  connections.set(own, context);
  return own;
}

export function wsConnectionOf(services: Services): WsConnectionContext | undefined {
  return connections.get(services);
}

function subscriptionsOf(ctx: MethodContext): {
  connection: SubscriptionConnection;
  manager: SubscriptionManager;
} {
  const ws = wsConnectionOf(ctx.services);
  if (ctx.transport !== 'ws' || ws === undefined) throw new RpcError(METHOD_NOT_ENABLED);
  // A WS server started without a subscription manager has no event source to subscribe to.
  if (ws.subscriptions === undefined) throw new RpcError(INVALID_REQUEST);
  return { connection: ws.connection, manager: ws.subscriptions };
}

function mapErrors<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof InvalidSubscriptionRequestError) throw new RpcError(INVALID_REQUEST);
    if (err instanceof SubscriptionNotFoundError) throw new RpcError(SUBSCRIPTION_NOT_FOUND);
    throw err;
  }
}

export const ethSubscribe: RpcMethod = {
  name: 'eth_subscribe',
  group: 'ETH',
  handler(params, ctx) {
    const { connection, manager } = subscriptionsOf(ctx);
    return mapErrors(() => manager.subscribe(connection, params));
  },
};

export const ethUnsubscribe: RpcMethod = {
  name: 'eth_unsubscribe',
  group: 'ETH',
  handler(params, ctx) {
    const { connection, manager } = subscriptionsOf(ctx);
    return mapErrors(() => manager.unsubscribe(connection, params));
  },
};

export const subscriptionMethods: readonly RpcMethod[] = [ethSubscribe, ethUnsubscribe];
