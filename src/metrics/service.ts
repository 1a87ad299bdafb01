/**
 * The node's metrics: one prom-client registry, metrics grouped by category as Besu groups them.
 * The Prometheus name of a metric is `<prefix><category>_<name>`: the standard metrics client
 * dashboards share are `ethereum_*`, the process and runtime ones `process_*` and `nodejs_*` (prom-client's
 * defaults), Alder's own `alder_<category>_*`. `debugMetrics()` reads the same registry in Besu's
 * nested shape. With metrics off (neither served nor pushed) nothing is registered, as Besu's no-op
 * metrics system: debug_metrics then answers `{}`.
 */
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';

/** Besu's category names (lower case), as debug_metrics and `--metrics-category` use them. */
export type MetricCategory =
  | 'blockchain'
  | 'block_processing'
  | 'ethereum'
  | 'network'
  | 'nodejs'
  | 'peers'
  | 'process'
  | 'rpc'
  | 'synchronizer'
  | 'transaction_pool';

/** Categories without the application prefix in their Prometheus names. */
const UNPREFIXED = new Set<MetricCategory>(['ethereum', 'process', 'nodejs']);
const APPLICATION_PREFIX = 'alder_';

export interface MetricsOptions {
  /** False: the no-op system (nothing registered). */
  enabled: boolean;
  /** Categories collected (upper or lower case); others are not registered. */
  categories: readonly string[];
}

interface MetricName {
  category: MetricCategory;
  name: string;
}

export class MetricsService {
  readonly registry = new Registry();
  readonly enabled: boolean;
  private readonly categories: Set<string>;
  /** Prometheus name → category and name within it, for debug_metrics. */
  private readonly names = new Map<string, MetricName>();

  constructor(opts: MetricsOptions) {
    this.enabled = opts.enabled;
    this.categories = new Set(opts.categories.map((c) => c.toLowerCase()));
    if (this.enabled && (this.isEnabled('process') || this.isEnabled('nodejs'))) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
      if (!this.isEnabled('process') || !this.isEnabled('nodejs')) {
        for (const m of this.registry.getMetricsAsArray()) {
          const category = m.name.startsWith('nodejs_') ? 'nodejs' : 'process';
          if (!this.isEnabled(category)) this.registry.removeSingleMetric(m.name);
        }
      }
    }
  }

  /** Whether metrics of `category` are collected. */
  isEnabled(category: MetricCategory): boolean {
    return this.enabled && this.categories.has(category);
  }

  prometheusName(category: MetricCategory, name: string): string {
    return `${UNPREFIXED.has(category) ? '' : APPLICATION_PREFIX}${category}_${name}`;
  }

  /** A gauge whose value is read at scrape time; undefined when the category is off. */
  gauge(
    category: MetricCategory,
    name: string,
    help: string,
    read?: () => number | bigint,
    labelNames: readonly string[] = [],
  ): Gauge | undefined {
    if (!this.isEnabled(category)) return undefined;
    const fullName = this.record(category, name);
    return new Gauge({
      name: fullName,
      help,
      labelNames,
      registers: [this.registry],
      collect: read
        ? function (this: Gauge) {
            this.set(Number(read()));
          }
        : undefined,
    });
  }

  counter(
    category: MetricCategory,
    name: string,
    help: string,
    labelNames: readonly string[] = [],
  ): Counter | undefined {
    if (!this.isEnabled(category)) return undefined;
    return new Counter({ name: this.record(category, name), help, labelNames, registers: [this.registry] });
  }

  histogram(
    category: MetricCategory,
    name: string,
    help: string,
    labelNames: readonly string[] = [],
    buckets?: number[],
  ): Histogram | undefined {
    if (!this.isEnabled(category)) return undefined;
    return new Histogram({
      name: this.record(category, name),
      help,
      labelNames,
      buckets,
      registers: [this.registry],
    });
  }

  private record(category: MetricCategory, name: string): string {
    const fullName = this.prometheusName(category, name);
    this.names.set(fullName, { category, name });
    return fullName;
  }

  /** The Prometheus text exposition of every collected metric. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * Besu's debug_metrics object: category → metric name → one level per label value → value. A
   * histogram's buckets are one more level keyed by bound, its sum and count keys `sum` and `count`.
   * A key that is both a value and a parent keeps the value under `value`.
   */
  async debugMetrics(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    if (!this.enabled) return out;
    const metrics = (await this.registry.getMetricsAsJSON()) as MetricObjectWithValues<MetricValue<string>>[];
    for (const metric of metrics) {
      const where = this.categoryOf(metric.name);
      if (!where) continue;
      const labelNames = labelsOf(metric);
      for (const v of metric.values) {
        const path: string[] = [where.category, where.name];
        const labels = v.labels as Record<string, string | number | undefined>;
        for (const l of labelNames) if (labels[l] !== undefined) path.push(String(labels[l]));
        const metricName = (v as { metricName?: string }).metricName;
        if (metricName?.endsWith('_bucket')) path.push(String(labels.le));
        else if (metricName?.endsWith('_sum')) path.push('sum');
        else if (metricName?.endsWith('_count')) path.push('count');
        put(out, path, v.value);
      }
    }
    return out;
  }

  private categoryOf(prometheusName: string): MetricName | undefined {
    const known = this.names.get(prometheusName);
    if (known) return known;
    // prom-client's default metrics: process_* and nodejs_*.
    if (prometheusName.startsWith('process_'))
      return { category: 'process', name: prometheusName.slice('process_'.length) };
    if (prometheusName.startsWith('nodejs_'))
      return { category: 'nodejs', name: prometheusName.slice('nodejs_'.length) };
    return undefined;
  }
}

function labelsOf(metric: MetricObjectWithValues<MetricValue<string>>): string[] {
  const names: string[] = [];
  for (const v of metric.values) {
    for (const k of Object.keys(v.labels)) if (k !== 'le' && !names.includes(k)) names.push(k);
  }
  return names;
}

function put(root: Record<string, unknown>, path: readonly string[], value: number): void {
  let node = root;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i] as string;
    const existing = node[k];
    if (typeof existing === 'object' && existing !== null) {
      node = existing as Record<string, unknown>;
    } else {
      const next: Record<string, unknown> = {};
      if (existing !== undefined) next.value = existing;
      node[k] = next;
      node = next;
    }
  }
  const leaf = path[path.length - 1] as string;
  const at = node[leaf];
  if (typeof at === 'object' && at !== null) (at as Record<string, unknown>).value = value;
  else node[leaf] = value;
}
