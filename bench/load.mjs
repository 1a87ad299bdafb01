#!/usr/bin/env node
import { readFileSync } from 'node:fs';
/**
 * Bounded JSON-RPC load generator, run as its own process so it does not share an event loop with
 * the node under test. It keeps `concurrency` keep-alive connections busy, each sending the next
 * request body as soon as its previous response is complete, and stops after `requests` responses
 * or `seconds`, whichever comes first.
 *
 *   node bench/load.mjs SPEC.json
 *
 * SPEC: { url, bodies: string[] (sent round-robin), concurrency, requests, seconds }
 * Prints one JSON line: { count, errors, firstError, seconds, rps, p50, p99, meanBytes }
 * (latencies in milliseconds, from the request being written to its response fully read).
 */
import { Agent, request } from 'node:http';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const url = new URL(spec.url);
const concurrency = spec.concurrency ?? 64;
const maxRequests = spec.requests ?? 20_000;
const maxMs = (spec.seconds ?? 5) * 1000;
const bodies = spec.bodies.map((b) => Buffer.from(b));
const agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });

const latencies = new Float64Array(maxRequests);
let started = 0;
let done = 0;
let errors = 0;
let firstError;
let bytes = 0;
const t0 = performance.now();
const deadline = t0 + maxMs;

function send(body) {
  return new Promise((resolve) => {
    const begin = performance.now();
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        const chunks = [];
        let size = 0;
        res.on('data', (c) => {
          chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          const ms = performance.now() - begin;
          const head = (chunks[0] ?? Buffer.alloc(0)).subarray(0, 96).toString('latin1');
          const ok = res.statusCode === 200 && head.includes('"result":');
          resolve({ ms, ok, size, detail: ok ? undefined : `${res.statusCode} ${head}` });
        });
        res.on('error', (e) =>
          resolve({ ms: performance.now() - begin, ok: false, size: 0, detail: e.message }),
        );
      },
    );
    req.on('error', (e) => resolve({ ms: performance.now() - begin, ok: false, size: 0, detail: e.message }));
    req.end(body);
  });
}

async function worker() {
  while (started < maxRequests && performance.now() < deadline) {
    const body = bodies[started % bodies.length];
    started++;
    const r = await send(body);
    latencies[done++] = r.ms;
    bytes += r.size;
    if (!r.ok) {
      errors++;
      firstError ??= r.detail;
    }
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (performance.now() - t0) / 1000;
agent.destroy();
const sorted = latencies.subarray(0, done).sort();
const pct = (p) => (done === 0 ? Number.NaN : sorted[Math.min(done - 1, Math.floor((p / 100) * done))]);
process.stdout.write(
  `${JSON.stringify({
    count: done,
    errors,
    firstError,
    seconds,
    rps: done / seconds,
    p50: pct(50),
    p99: pct(99),
    meanBytes: done === 0 ? 0 : Math.round(bytes / done),
  })}\n`,
);
