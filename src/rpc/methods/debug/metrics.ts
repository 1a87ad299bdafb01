/** debug_metrics: the metrics registry in Besu's nested shape (`{}` when metrics are off). */
import type { RpcMethod } from '../types.js';

export const debugMetrics: RpcMethod = {
  name: 'debug_metrics',
  group: 'DEBUG',
  handler: async (_params, { services }) => (services.metrics ? services.metrics.debugMetrics() : {}),
};
