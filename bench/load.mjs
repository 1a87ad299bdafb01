#!/usr/bin/env node
/**
 * Bounded JSON-RPC load generator, run as its own process so it does not share an event loop with
 * the node under test. It keeps `concurrency` keep-alive connections busy, each sending the next
 * request as soon as its previous response is complete, and stops after `requests` responses or
 * `seconds`, whichever comes first.
 *
 * It speaks HTTP/1.1 over raw TCP sockets with pre-built requests and the minimal response reader of
 * httpRaw.mjs (status line, Content-Length or chunked bodies): Node's own HTTP client costs more CPU
 * per request than the servers measured here, and would make the generator the bottleneck on a small
 * machine.
 *
 *   node bench/load.mjs SPEC.json
 *
 * SPEC: { url, bodies: string[] (sent round-robin), concurrency, requests, seconds, okMarker? }
 * (an answer counts as an error unless its status is 200 and its first 96 bytes hold `okMarker`,
 * `"result":` by default)
 * Prints one JSON line: { count, errors, firstError, seconds, rps, p50, p99, meanBytes }
 * (latencies in milliseconds, from the request being written to its response fully read).
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { parseResponse, postRequest } from './httpRaw.mjs';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const url = new URL(spec.url);
const concurrency = spec.concurrency ?? 64;
const maxRequests = spec.requests ?? 20_000;
const maxMs = (spec.seconds ?? 5) * 1000;
const port = Number(url.port || 80);
const okMarker = spec.okMarker ?? '"result":';
const requests = spec.bodies.map((b) => postRequest(url, b));

const latencies = new Float64Array(maxRequests);
let started = 0;
let done = 0;
let errors = 0;
let firstError;
let bytes = 0;
const t0 = performance.now();
const deadline = t0 + maxMs;

function worker() {
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port, noDelay: true });
    let pending = Buffer.alloc(0);
    let begin = 0;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      socket.destroy();
      resolve();
    };
    const next = () => {
      if (started >= maxRequests || performance.now() >= deadline) return finish();
      const req = requests[started % requests.length];
      started++;
      begin = performance.now();
      socket.write(req);
    };
    socket.on('connect', next);
    socket.on('data', (chunk) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const r = parseResponse(pending);
      if (!r) return;
      pending = pending.subarray(r.end);
      latencies[done++] = performance.now() - begin;
      bytes += r.body.length;
      const start = r.body.toString('latin1', 0, Math.min(96, r.body.length));
      if (r.status !== 200 || !start.includes(okMarker)) {
        errors++;
        firstError ??= `${r.status} ${start}`;
      }
      next();
    });
    socket.on('error', (e) => {
      errors++;
      firstError ??= e.message;
      finish();
    });
    socket.on('close', finish);
  });
}

await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (performance.now() - t0) / 1000;
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
