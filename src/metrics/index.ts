/**
 * Metrics as the node runs them: the registry (collecting only when metrics are served or pushed),
 * the node's metrics, the JSON-RPC instrumentation, and the server or the Pushgateway pusher.
 */
import type { Config } from '../config/types.js';
import { type NodeMetrics, type NodeMetricsSources, registerNodeMetrics } from './nodeMetrics.js';
import { type MethodInstrument, rpcInstrument } from './rpc.js';
import { type MetricsPusher, type MetricsServer, startMetricsPush, startMetricsServer } from './server.js';
import { MetricsService } from './service.js';

export { MetricsService } from './service.js';

export interface RunningMetrics {
  service: MetricsService;
  node: NodeMetrics;
  /** Wraps JSON-RPC methods with the rpc metrics (identity when off). */
  instrument: MethodInstrument;
  /** Where `/metrics` is served, when it is. */
  endpoint?: { host: string; port: number };
  close(): Promise<void>;
}

export async function startMetrics(config: Config, sources: NodeMetricsSources): Promise<RunningMetrics> {
  const service = new MetricsService({
    enabled: config.metricsEnabled || config.metricsPushEnabled,
    categories: config.metricsCategory,
  });
  const node = registerNodeMetrics(service, sources);
  let server: MetricsServer | undefined;
  let pusher: MetricsPusher | undefined;
  // PROMETHEUS is the one protocol (the option refuses the others): the text exposition format.
  const protocol = config.metricsProtocol;
  if (config.metricsEnabled) {
    server = await startMetricsServer(service, {
      host: config.metricsHost,
      port: config.metricsPort,
      protocol,
    });
  } else if (config.metricsPushEnabled) {
    pusher = startMetricsPush(service, {
      host: config.metricsPushHost,
      port: config.metricsPushPort,
      intervalSeconds: config.metricsPushInterval,
      job: config.metricsPushPrometheusJob,
    });
  }
  return {
    service,
    node,
    instrument: rpcInstrument(service),
    endpoint: server ? { host: server.host, port: server.port } : undefined,
    async close() {
      node.close();
      await server?.close();
      await pusher?.close();
      service.registry.clear();
    },
  };
}
