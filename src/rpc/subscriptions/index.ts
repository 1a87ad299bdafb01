export { type LogFilter, logMatches, parseLogFilter } from './logFilter.js';
export {
  InvalidSubscriptionRequestError,
  SUBSCRIPTION_TYPES,
  type SubscriptionConnection,
  SubscriptionManager,
  SubscriptionNotFoundError,
  type SubscriptionType,
} from './manager.js';
export {
  ethSubscribe,
  ethUnsubscribe,
  servicesForConnection,
  subscriptionMethods,
  type WsConnectionContext,
  wsConnectionOf,
} from './methods.js';
export type { JsonObject, SubscriptionSource } from './source.js';
