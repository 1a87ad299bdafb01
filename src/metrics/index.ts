/**
 * Metrics as the node runs them: the registry (collecting only when metrics are served or pushed),
 * the node's metrics, the JSON-RPC instrumentation, and the server or the Pushgateway pusher.
 *
 * With metrics off (neither served nor pushed) nothing is registered, as Besu's no-op metrics system:
 * prom-client and the modules built on it are then not loaded at all (they cost the idle node ~12 MB
 * of RSS), debug_metrics answers `{}` and methods are not wrapped.
 */
import type { Config } from '../config/types.js';
import type { NodeMetrics, NodeMetricsSources } from './nodeMetrics.js';
import type { MethodInstrument } from './rpc.js';
import type { MetricsPusher, MetricsServer } from './server.js';
import type { MetricsService } from './service.js';

export type { MetricsService } from './service.js';

export interface RunningMetrics {
  /** Absent when metrics are off. */
  service?: MetricsService;
  node?: NodeMetrics;
  /** Wraps JSON-RPC methods with the rpc metrics (identity when off). */
  instrument: MethodInstrument;
  /** Where `/metrics` is served, when it is. */
  endpoint?: { host: string; port: number };
  close(): Promise<void>;
}

export async function startMetrics(config: Config, sources: NodeMetricsSources): Promise<RunningMetrics> {
  if (!config.metricsEnabled && !config.metricsPushEnabled) {
    return { instrument: (methods) => [...methods], close: async () => undefined };
  }
  const [{ MetricsService }, { registerNodeMetrics }, { rpcInstrument }, server] = await Promise.all([
    import('./service.js'),
    import('./nodeMetrics.js'),
    import('./rpc.js'),
    import('./server.js'),
  ]);
  const service = new MetricsService({ enabled: true, categories: config.metricsCategory });
  const node = registerNodeMetrics(service, sources);
  let listener: MetricsServer | undefined;
  let pusher: MetricsPusher | undefined;
  // PROMETHEUS is the one protocol (the option refuses the others): the text exposition format.
  const protocol = config.metricsProtocol;
  if (config.metricsEnabled) {
    listener = await server.startMetricsServer(service, {
      host: config.metricsHost,
      port: config.metricsPort,
      protocol,
    });
  } else {
    pusher = server.startMetricsPush(service, {
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
    endpoint: listener ? { host: listener.host, port: listener.port } : undefined,
    async close() {
      node.close();
      await listener?.close();
      await pusher?.close();
      service.registry.clear();
    },
  };
}
