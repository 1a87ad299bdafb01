export { type LogFilter, logMatches, parseLogFilter } from './logFilter.js';
export {
  InvalidSubscriptionRequestError,
  SUBSCRIPTION_TYPES,
  type SubscriptionConnection,
  SubscriptionManager,
  SubscriptionNotFoundError,
  type SubscriptionType,
} from './manager.js';
export { ethSubscribe, ethUnsubscribe, subscriptionMethods } from './methods.js';
export type { JsonObject, SubscriptionSource } from './source.js';
