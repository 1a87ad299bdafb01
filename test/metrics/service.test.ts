/** The metrics registry: category selection, Prometheus names, and debug_metrics' nested shape. */
import { describe, expect, it } from 'vitest';
import { MetricsService } from '../../src/metrics/service.js';

describe('MetricsService', () => {
  it('registers nothing when off: debug_metrics is {}', async () => {
    const m = new MetricsService({ enabled: false, categories: ['RPC'] });
    expect(m.counter('rpc', 'requests_total', 'x')).toBeUndefined();
    expect(await m.debugMetrics()).toEqual({});
    expect((await m.text()).trim()).toBe('');
  });

  it('collects only the chosen categories, with Besu-style names', async () => {
    const m = new MetricsService({ enabled: true, categories: ['ETHEREUM', 'RPC'] });
    expect(m.gauge('ethereum', 'blockchain_height', 'h', () => 7n)).toBeDefined();
    expect(m.gauge('blockchain', 'height', 'h', () => 7n)).toBeUndefined();
    m.counter('rpc', 'requests_total', 'r', ['methodName'])?.inc({ methodName: 'eth_chainId' }, 2);
    const text = await m.text();
    expect(text).toContain('ethereum_blockchain_height 7');
    expect(text).toContain('alder_rpc_requests_total{methodName="eth_chainId"} 2');
    expect(text).not.toContain('process_');
    expect(text).not.toContain('nodejs_');
  });

  it('nests label values, histogram buckets, sum and count; a leaf that is also a parent moves under value', async () => {
    const m = new MetricsService({ enabled: true, categories: ['BLOCKCHAIN', 'RPC'] });
    const c = m.counter('blockchain', 'imports_total', 'i', ['kind', 'result']);
    c?.inc({ kind: 'block' }, 3);
    c?.inc({ kind: 'block', result: 'ok' }, 2);
    m.histogram('rpc', 'request_time', 't', ['methodName'], [0.1, 1])?.observe(
      { methodName: 'eth_call' },
      0.5,
    );
    const d = await m.debugMetrics();
    expect(d.blockchain).toEqual({ imports_total: { block: { value: 3, ok: 2 } } });
    expect(d.rpc).toEqual({
      request_time: { eth_call: { '0.1': 0, '1': 1, '+Inf': 1, sum: 0.5, count: 1 } },
    });
  });
});
