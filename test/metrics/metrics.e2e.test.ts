/**
 * Metrics of a running dev node: `/metrics` scraped and parsed as Prometheus text while the node mines
 * and answers JSON-RPC; debug_metrics from the same registry; net_services naming the metrics endpoint;
 * push mode against a Pushgateway stand-in on 127.0.0.1; the refusal of both modes together.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevNode, startDevNode } from '../helpers/devNetwork.js';
import { freePort, removeDir, rpc, runCliStatus, startNode, tempDir } from '../helpers/node.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus.js';

async function scrape(port: number) {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return parsePrometheusText(await res.text());
}

async function waitFor(check: () => Promise<boolean>, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('metrics on a running dev node', () => {
  let node: DevNode;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    node = await startDevNode([
      '--metrics-enabled',
      '--metrics-host=127.0.0.1',
      `--metrics-port=${metricsPort}`,
      '--rpc-http-api=ETH,NET,DEBUG',
    ]);
  });
  afterAll(async () => {
    await node?.close();
  });

  it('serves the head height and moves it as blocks are mined', async () => {
    const first = await scrape(metricsPort);
    const h0 = sampleValue(first, 'ethereum_blockchain_height');
    expect(h0).toBeTypeOf('number');
    expect(first.get('ethereum_blockchain_height')?.type).toBe('gauge');
    for (const name of ['ethereum_peer_count', 'ethereum_peer_limit', 'ethereum_best_known_block_number']) {
      expect(sampleValue(first, name)).toBeTypeOf('number');
    }
    expect(sampleValue(first, 'ethereum_peer_limit')).toBe(0);
    let later = h0 as number;
    await waitFor(async () => {
      const now = await scrape(metricsPort);
      later = sampleValue(now, 'ethereum_blockchain_height') as number;
      const rpcHead = Number(await rpc<string>(node.url, 'eth_blockNumber'));
      return later > (h0 as number) && rpcHead >= later;
    });
    const now = await scrape(metricsPort);
    expect(sampleValue(now, 'alder_block_processing_blocks_total')).toBeGreaterThan(0);
    expect(sampleValue(now, 'alder_blockchain_height')).toBeGreaterThanOrEqual(later);
    // Process and runtime metrics.
    expect(sampleValue(now, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sampleValue(now, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(now.get('nodejs_eventloop_lag_seconds')).toBeDefined();
    expect(now.get('nodejs_gc_duration_seconds')?.type).toBe('histogram');
  });

  it('counts JSON-RPC requests per method with a duration histogram', async () => {
    const before = await scrape(metricsPort);
    const label = { methodName: 'eth_getBalance' };
    const count0 = sampleValue(before, 'alder_rpc_requests_total', label) ?? 0;
    for (let i = 0; i < 5; i++) await rpc(node.url, 'eth_getBalance', [`0x${'11'.repeat(20)}`, 'latest']);
    await expect(rpc(node.url, 'eth_getBalance', ['0xnothex', 'latest'])).rejects.toThrow();
    const after = await scrape(metricsPort);
    expect(sampleValue(after, 'alder_rpc_requests_total', label)).toBe(count0 + 6);
    expect(sampleValue(after, 'alder_rpc_errors_total', label)).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'alder_rpc_request_time_count', label)).toBe(count0 + 6);
    expect(sampleValue(after, 'alder_rpc_request_time_bucket', { ...label, le: '+Inf' })).toBe(count0 + 6);
    expect(after.get('alder_rpc_request_time')?.type).toBe('histogram');
  });

  it('answers debug_metrics from the same registry in the nested shape', async () => {
    await rpc(node.url, 'eth_chainId');
    const m = await rpc<Record<string, Record<string, unknown>>>(node.url, 'debug_metrics');
    expect(Object.keys(m)).toEqual(
      expect.arrayContaining(['ethereum', 'blockchain', 'rpc', 'process', 'nodejs', 'transaction_pool']),
    );
    expect(m.ethereum?.blockchain_height).toBeTypeOf('number');
    expect(m.ethereum?.peer_limit).toBe(0);
    const rpcMetrics = m.rpc as Record<string, Record<string, unknown>>;
    const perMethod = rpcMetrics.requests_total as Record<string, number>;
    expect(perMethod.eth_chainId).toBeGreaterThanOrEqual(1);
    const time = rpcMetrics.request_time?.eth_chainId as Record<string, number>;
    expect(time.count).toBeGreaterThanOrEqual(1);
    expect(time.sum).toBeTypeOf('number');
    expect(time['+Inf']).toBe(time.count);
  });

  it('lists the metrics endpoint in net_services', async () => {
    const s = await rpc<Record<string, { host: string; port: string }>>(node.url, 'net_services');
    expect(s.metrics).toEqual({ host: '127.0.0.1', port: String(metricsPort) });
    expect(s.jsonrpc).toEqual({ host: '127.0.0.1', port: String(node.port) });
  });

  it('answers 404 off /metrics', async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/nothing`);
    expect(res.status).toBe(404);
  });
});

describe('metrics push mode', () => {
  it('POSTs the exposition to the Pushgateway job path and deletes the job on stop', async () => {
    const seen: { method: string; url: string; body: string }[] = [];
    const gateway = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body });
        res.writeHead(req.method === 'DELETE' ? 202 : 200).end();
      });
    });
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
    const gatewayPort = (gateway.address() as AddressInfo).port;
    const dir = tempDir();
    const node = await startNode([
      '--network=dev',
      `--data-path=${dir}`,
      '--metrics-push-enabled',
      '--metrics-push-host=127.0.0.1',
      `--metrics-push-port=${gatewayPort}`,
      '--metrics-push-interval=1',
      '--metrics-push-prometheus-job=alder-test',
      '--rpc-http-api=ETH,NET,DEBUG',
    ]);
    try {
      await waitFor(async () => seen.filter((s) => s.method === 'POST').length >= 2);
      const push = seen.find((s) => s.method === 'POST');
      expect(push?.url).toBe('/metrics/job/alder-test');
      const families = parsePrometheusText(push?.body ?? '');
      expect(sampleValue(families, 'ethereum_blockchain_height')).toBe(0);
      // Push mode collects too: debug_metrics answers, net_services has no metrics endpoint.
      const m = await rpc<Record<string, unknown>>(node.url, 'debug_metrics');
      expect(m.ethereum).toBeDefined();
      const s = await rpc<Record<string, unknown>>(node.url, 'net_services');
      expect(s.metrics).toBeUndefined();
    } finally {
      await node.stop();
      removeDir(dir);
    }
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/metrics/job/alder-test' });
    await new Promise<void>((r) => gateway.close(() => r()));
  });

  it('answers debug_metrics with {} when metrics are off', async () => {
    const dir = tempDir();
    const node = await startNode(['--network=dev', `--data-path=${dir}`, '--rpc-http-api=DEBUG,NET']);
    try {
      expect(await rpc(node.url, 'debug_metrics')).toEqual({});
      expect(await rpc(node.url, 'net_services')).toEqual({
        jsonrpc: { host: '127.0.0.1', port: String(node.port) },
      });
    } finally {
      await node.stop();
      removeDir(dir);
    }
  });

  it('refuses --metrics-enabled together with --metrics-push-enabled, and other protocols', async () => {
    const both = await runCliStatus(['--network=dev', '--metrics-enabled', '--metrics-push-enabled']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--metrics-enabled option and --metrics-push-enabled option can't be used");
    const otel = await runCliStatus(['--network=dev', '--metrics-protocol=OPENTELEMETRY']);
    expect(otel.code).toBe(2);
    expect(otel.stderr).toContain('not available in Alder');
    const bad = await runCliStatus(['--network=dev', '--metrics-category=JVM']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid entries found [JVM]');
  });
});
