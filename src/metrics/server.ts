/**
 * Serving and pushing metrics. The server answers GET `/metrics` (and `/`) with the Prometheus text
 * exposition; the pusher POSTs the same text to a Pushgateway every interval (adding to the job's group)
 * and deletes the job's group on stop, as Besu does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../log.js';
import type { MetricsService } from './service.js';

export interface MetricsServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(
  metrics: MetricsService,
  opts: { host: string; port: number; protocol: 'PROMETHEUS' },
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' && path !== '/') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method Not Allowed\n');
      return;
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        logger('metrics').error({ err }, 'Cannot collect metrics');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error\n');
      },
    );
  });
  // Slow senders are cut as on the JSON-RPC listener: headers within 10 s, the whole request within 30 s.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  logger('metrics').info(`Metrics service (${opts.protocol}) started on ${opts.host}:${port}`);
  return {
    host: opts.host,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface MetricsPusher {
  /** Pushes once now (also done every interval). */
  push(): Promise<void>;
  close(): Promise<void>;
}

export function startMetricsPush(
  metrics: MetricsService,
  opts: { host: string; port: number; intervalSeconds: number; job: string },
): MetricsPusher {
  const log = logger('metrics');
  const base = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`;
  const url = `${base}/metrics/job/${encodeURIComponent(opts.job)}`;
  let running: Promise<void> = Promise.resolve();
  const send = async (method: 'PUT' | 'POST' | 'DELETE', body?: string): Promise<void> => {
    const res = await fetch(url, {
      method,
      headers: body === undefined ? undefined : { 'content-type': metrics.contentType },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    if (res.status >= 300) throw new Error(`Pushgateway answered HTTP ${res.status}`);
  };
  const push = (): Promise<void> => {
    running = running.then(async () => {
      try {
        await send('POST', await metrics.text());
      } catch (err) {
        log.warn(`Could not push metrics to ${base}: ${(err as Error).message}`);
      }
    });
    return running;
  };
  const timer = setInterval(() => void push(), opts.intervalSeconds * 1000);
  timer.unref();
  void push();
  log.info(`Pushing metrics to ${base} every ${opts.intervalSeconds} s as job ${opts.job}`);
  return {
    push,
    async close() {
      clearInterval(timer);
      await running;
      try {
        await send('DELETE');
      } catch (err) {
        log.warn(`Could not delete the metrics job from ${base}: ${(err as Error).message}`);
      }
    },
  };
}
