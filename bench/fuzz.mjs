#!/usr/bin/env node
/**
 * JSON-RPC fuzzing of a real `bin/alder` over HTTP and WebSocket.
 *
 *   npm run fuzz -- --requests=100000 [--seed=1] [--ws-share=0.2] [--memory-probe]
 *
 * Requests are drawn from: malformed and truncated JSON, deep nesting, huge numbers and strings, wrong
 * types for every parameter of every method in the method table, huge and empty batches, odd ids,
 * non-UTF-8 bytes, and (a few, in parallel) slow senders. The node is a mining dev node with HTTP and
 * WebSocket enabled. Checked for every answer: HTTP status below 500, a body that is JSON (or empty for a
 * notification), a WebSocket answer for every message, no hang (30 s per request, huge batches included) and no crash; the
 * node's RSS after the run against before. `-32603 Internal error` answers are counted per method: on
 * hostile parameters they mean a handler missed a check.
 *
 * --memory-probe starts the node with its inspector on 127.0.0.1 and, before the run, every 10,000
 * requests and after it, forces a full garbage collection there (HeapProfiler.collectGarbage) and reads
 * the node's own memory figures: RSS, V8 heap used and committed per space, external and array buffer
 * memory. A leak shows as live heap (used after a full collection) growing with the request count;
 * RSS growing while it stays flat is memory the heap or the allocator keeps committed.
 * --heap-snapshots=DIR (with --memory-probe) also writes heap snapshots at 10,000 requests and after
 * the run, to compare object counts by constructor.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { freePort, random, sleep } from './util.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/alder');

/**
 * A client of the node's inspector (Chrome DevTools protocol over WebSocket): forces a full collection
 * and evaluates an expression in the node's main context.
 */
class InspectorProbe {
  static async connect(port) {
    for (let tries = 0; ; tries++) {
      try {
        const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
        const probe = new InspectorProbe();
        probe.ws = new WebSocket(list[0].webSocketDebuggerUrl);
        probe.pending = new Map();
        probe.seq = 0;
        probe.chunks = [];
        probe.ws.on('message', (d) => {
          const m = JSON.parse(d.toString());
          if (m.method === 'HeapProfiler.addHeapSnapshotChunk') probe.chunks.push(m.params.chunk);
          probe.pending.get(m.id)?.(m);
          probe.pending.delete(m.id);
        });
        await new Promise((res, rej) => {
          probe.ws.once('open', res);
          probe.ws.once('error', rej);
        });
        return probe;
      } catch (err) {
        if (tries > 100) throw err;
        await sleep(100);
      }
    }
  }

  call(method, params = {}) {
    const id = ++this.seq;
    return new Promise((res) => {
      this.pending.set(id, res);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Live memory after a full collection, in MiB. */
  async sample() {
    await this.call('HeapProfiler.enable');
    await this.call('HeapProfiler.collectGarbage');
    const expression = `JSON.stringify((() => {
      const v8 = process.getBuiltinModule('v8');
      const m = process.memoryUsage();
      const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_used_size, s.physical_space_size]]));
      return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, spaces };
    })())`;
    const r = await this.call('Runtime.evaluate', { expression, returnByValue: true });
    const v = JSON.parse(r.result.result.value);
    const mib = (x) => Math.round((x / 2 ** 20) * 10) / 10;
    return {
      rss: mib(v.rss),
      heapUsed: mib(v.heapUsed),
      heapCommitted: mib(v.heapTotal),
      external: mib(v.external),
      arrayBuffers: mib(v.arrayBuffers),
      newSpaceCommitted: mib(v.spaces.new_space?.[1] ?? 0),
      oldSpace: `${mib(v.spaces.old_space?.[0] ?? 0)}/${mib(v.spaces.old_space?.[1] ?? 0)}`,
    };
  }

  /** Writes a heap snapshot of the node (after a full collection) to `file`. */
  async snapshot(file) {
    this.chunks = [];
    await this.call('HeapProfiler.enable');
    await this.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    writeFileSync(file, this.chunks.join(''));
    this.chunks = [];
  }

  close() {
    this.ws.close();
  }
}

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** Hostile values of every JSON type. */
function hostileValues(rand) {
  const longHex = `0x${'ab'.repeat(20_000)}`;
  return [
    null,
    true,
    false,
    0,
    -1,
    1.5,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    2 ** 64,
    '',
    '0x',
    '0x0',
    '0xzz',
    '0x' + 'f'.repeat(64),
    '0x' + 'f'.repeat(65),
    '0xffffffffffffffff',
    '0x10000000000000000',
    '-0x1',
    'latest',
    'pending',
    'earliest',
    'safe',
    'finalized',
    'notatag',
    '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73',
    '0xFE3B557E8FB62B89F4916B721BE55CEB828DBD7',
    longHex,
    'x'.repeat(100_000),
    '\u0000\ud800',
    {},
    [],
    [[[[[]]]]],
    { to: 123 },
    { from: '0xzz', to: null, data: '0x1', value: '0x' + 'f'.repeat(80) },
    { nonce: '0xffffffffffffffff', to: '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73' },
    { gas: '0xffffffffffffffffffff', gasPrice: -1 },
    { fromBlock: '0x0', toBlock: 'latest', address: [1, 2], topics: [[null, '0x']] },
    { blockHash: '0x00', fromBlock: 'latest' },
    { fromBlock: '0x10', toBlock: '0x1' },
    { address: 'x'.repeat(1000), topics: 'abc' },
    { includeTransactions: 'yes' },
    [{}, null, 1],
    Array.from({ length: 5000 }, (_, i) => i),
    Number.MAX_SAFE_INTEGER,
    rand() < 0.5 ? '0x1' : '0x00000001',
  ];
}

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

const ODD_IDS = [
  '1e400',
  '-1e400',
  '1.5',
  '-0',
  '"id"',
  '""',
  'null',
  'true',
  '{}',
  '[]',
  '123456789012345678901234567890',
  '"\\ud800"',
  '1e-400',
  '0.0000001',
];

/** One hostile request body (string or bytes). */
function generate(rand, methods, values) {
  const roll = rand();
  const method = pick(rand, methods);
  const id = Math.floor(rand() * 1e6);
  const params = Array.from({ length: Math.floor(rand() * 5) }, () => pick(rand, values));
  const valid = () => JSON.stringify({ jsonrpc: '2.0', id, method, params });
  if (roll < 0.45) return { kind: 'wrong-types', body: valid() };
  if (roll < 0.55) {
    const text = valid();
    return { kind: 'truncated', body: text.slice(0, Math.floor(rand() * text.length)) };
  }
  if (roll < 0.6) {
    const text = Buffer.from(valid());
    for (let i = 0; i < 3; i++) text[Math.floor(rand() * text.length)] = Math.floor(rand() * 256);
    return { kind: 'non-utf8', body: text };
  }
  if (roll < 0.64) {
    const depth = Math.floor(rand() * 3000);
    return {
      kind: 'deep',
      body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    };
  }
  if (roll < 0.7)
    return {
      kind: 'odd-id',
      body: `{"jsonrpc":"2.0","id":${pick(rand, ODD_IDS)},"method":"${method}","params":[]}`,
    };
  if (roll < 0.74) {
    const huge =
      rand() < 0.5
        ? '9'.repeat(1 + Math.floor(rand() * 3000))
        : `"0x${'f'.repeat(Math.floor(rand() * 200_000))}"`;
    return { kind: 'huge-literal', body: `{"jsonrpc":"2.0","id":2,"method":"${method}","params":[${huge}]}` };
  }
  if (roll < 0.78) {
    const n = rand() < 0.3 ? 0 : Math.floor(rand() * 1500);
    const items = Array.from({ length: n }, () =>
      rand() < 0.8
        ? JSON.stringify({
            jsonrpc: '2.0',
            id: Math.floor(rand() * 1000),
            method: pick(rand, methods),
            params: [],
          })
        : pick(rand, ['1', '"x"', 'null', '[]', '{}']),
    );
    return { kind: 'batch', body: `[${items.join(',')}]` };
  }
  if (roll < 0.82) {
    const bytes = Buffer.alloc(1 + Math.floor(rand() * 200));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);
    return { kind: 'random-bytes', body: bytes };
  }
  if (roll < 0.86) {
    return {
      kind: 'envelope',
      body: pick(rand, [
        '{}',
        '{"jsonrpc":"2.0"}',
        `{"jsonrpc":"1.0","id":1,"method":"${method}"}`,
        `{"id":1,"method":${JSON.stringify(pick(rand, values))}}`,
        `{"id":1,"method":"${method}","params":${JSON.stringify(pick(rand, values))}}`,
        '"just a string"',
        '12345',
        'null',
        ' ',
        '',
      ]),
    };
  }
  // Valid reads mixed in, so handlers also run on good input between the bad.
  return {
    kind: 'valid',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'eth_getBlockByNumber',
      params: ['latest', rand() < 0.5],
    }),
  };
}

/** Checks one answer body; returns a defect description or undefined. */
/**
 * Methods whose -32603 answers are Besu's own for the input, not a handler failing on its parameters:
 * admin_logsRepairCache for a block the chain does not have (Besu throws an IllegalStateException).
 */
const BESU_INTERNAL = new Set(['admin_logsRepairCache']);

function checkBody(text, internal, method, request) {
  if (text === '') return undefined;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `answer is not JSON: ${text.slice(0, 120)}`;
  }
  const answers = Array.isArray(parsed) ? parsed : [parsed];
  for (const a of answers) {
    if (typeof a !== 'object' || a === null) return `answer element is not an object: ${text.slice(0, 120)}`;
    // -32603 with id null is the envelope's answer (Besu's WebSocket answer to unparsable text); with
    // an id it is a handler that failed on its parameters.
    if (a.error?.code === -32603 && a.id !== null && a.id !== undefined && !BESU_INTERNAL.has(method)) {
      internal.count = (internal.count ?? 0) + 1;
      const key = Array.isArray(parsed) ? `${method} (in a batch)` : method;
      internal.set(key, (internal.get(key) ?? 0) + 1);
      if (internal.samples.length < 30) internal.samples.push(request.slice(0, 400));
    }
  }
  return undefined;
}

/** A keep-alive HTTP client over one socket: one request at a time. */
class HttpConnection {
  constructor(port) {
    this.port = port;
    this.socket = undefined;
  }

  open() {
    return new Promise((res, rej) => {
      this.socket = connect(this.port, '127.0.0.1');
      this.socket.once('connect', res);
      this.socket.once('error', rej);
    });
  }

  async send(body) {
    if (!this.socket || this.socket.destroyed) await this.open();
    const socket = this.socket;
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const head = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`;
    return new Promise((res, rej) => {
      let buf = Buffer.alloc(0);
      const timer = setTimeout(() => done(new Error('HTTP answer took more than 30 s')), 30_000);
      const onData = (d) => {
        buf = Buffer.concat([buf, d]);
        const sep = buf.indexOf('\r\n\r\n');
        if (sep < 0) return;
        const headText = buf.subarray(0, sep).toString('latin1');
        const status = Number(headText.slice(9, 12));
        const close = /connection: close/i.test(headText);
        if (/transfer-encoding: chunked/i.test(headText)) {
          // Streamed batch answers: chunks until the zero-size one.
          const parts = [];
          let i = sep + 4;
          for (;;) {
            const eol = buf.indexOf('\r\n', i);
            if (eol < 0) return;
            const size = Number.parseInt(buf.subarray(i, eol).toString('latin1'), 16);
            if (size === 0) {
              if (buf.length < eol + 4) return;
              break;
            }
            if (buf.length < eol + 2 + size + 2) return;
            parts.push(buf.subarray(eol + 2, eol + 2 + size));
            i = eol + 2 + size + 2;
          }
          done(undefined, { status, body: Buffer.concat(parts).toString('utf8'), close });
          return;
        }
        const len = Number(/content-length: (\d+)/i.exec(headText)?.[1] ?? 0);
        if (buf.length < sep + 4 + len) return;
        done(undefined, { status, body: buf.subarray(sep + 4, sep + 4 + len).toString('utf8'), close });
      };
      const onClose = () => done(new Error('connection closed without an answer'));
      const done = (err, value) => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('close', onClose);
        socket.off('error', onClose);
        if (err) {
          socket.destroy();
          rej(err);
        } else {
          if (value.close) socket.destroy();
          res(value);
        }
      };
      socket.on('data', onData);
      socket.once('close', onClose);
      socket.once('error', onClose);
      socket.write(Buffer.concat([Buffer.from(head), payload]));
    });
  }

  close() {
    this.socket?.destroy();
  }
}

/** A WebSocket that answers every message; a sentinel after each one marks the end of its answers. */
class WsConnection {
  constructor(url) {
    this.url = url;
    this.seq = 0;
  }

  async open() {
    this.ws = new WebSocket(this.url, { maxPayload: 256 * 1024 * 1024 });
    this.inbox = [];
    this.waiter = undefined;
    this.ws.on('message', (d) => {
      this.inbox.push(d.toString());
      this.waiter?.();
    });
    this.ws.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    await new Promise((res, rej) => {
      this.ws.once('open', res);
      this.ws.once('error', rej);
    });
    this.closed = false;
  }

  /** Sends one message; resolves with the answers it produced (possibly none) or rejects. */
  async send(body) {
    if (!this.ws || this.closed) await this.open();
    const sentinel = `s${++this.seq}`;
    this.ws.send(body);
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id: sentinel, method: 'web3_clientVersion', params: [] }));
    const deadline = Date.now() + 30_000;
    const answers = [];
    for (;;) {
      while (this.inbox.length > 0) {
        const text = this.inbox.shift();
        if (text.includes(`"id":"${sentinel}"`)) return { answers, closed: false };
        answers.push(text);
      }
      if (this.closed) return { answers, closed: true };
      if (Date.now() > deadline) throw new Error('WebSocket answer took more than 30 s');
      await new Promise((r) => {
        this.waiter = r;
        setTimeout(r, 200);
      });
      this.waiter = undefined;
    }
  }

  close() {
    this.ws?.terminate();
  }
}

/** Slow senders, run beside the fuzzing: each must be closed by the server, never kept. */
function slowSender(port, ms) {
  return new Promise((res) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    socket.resume();
    const text = 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'y'.repeat(10_000);
    let i = 0;
    const timer = setInterval(() => socket.writable && socket.write(text[i++ % text.length]), 100);
    const finish = (closedByServer) => {
      clearInterval(timer);
      socket.destroy();
      res({ closedByServer, ms: Date.now() - started });
    };
    socket.once('close', () => finish(true));
    setTimeout(() => finish(false), ms);
  });
}

export async function runFuzz({
  requests = 2000,
  seed = 1,
  wsShare = 0.2,
  concurrency = 4,
  slowSenders = 4,
  slowMs = 15_000,
  memoryProbe = false,
  /** With memoryProbe: a directory for heap snapshots at 10,000 requests and after the run. */
  heapSnapshots,
  log = () => {},
} = {}) {
  const rand = random(seed);
  const dir = mkdtempSync(join(tmpdir(), 'alder-fuzz-'));
  const httpPort = await freePort();
  const wsPort = await freePort();
  const inspectorPort = memoryProbe ? await freePort() : undefined;
  const child = spawn(
    process.execPath,
    [
      ...(inspectorPort ? [`--inspect=127.0.0.1:${inspectorPort}`] : []),
      BIN,
      '--network=dev',
      '--p2p-enabled=false',
      `--data-path=${dir}`,
      '--rpc-http-enabled',
      '--rpc-http-host=127.0.0.1',
      `--rpc-http-port=${httpPort}`,
      '--rpc-ws-enabled',
      '--rpc-ws-host=127.0.0.1',
      `--rpc-ws-port=${wsPort}`,
      '--rpc-http-api=ETH,NET,WEB3,TXPOOL,DEBUG,MINER,ADMIN,CLIQUE',
      '--rpc-ws-api=ETH,NET,WEB3,TXPOOL,DEBUG,MINER,ADMIN,CLIQUE',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d) => {
    output = (output + d).slice(-50_000);
  });
  child.stderr.on('data', (d) => {
    output = (output + d).slice(-50_000);
  });
  const result = {
    requests: 0,
    http: 0,
    ws: 0,
    byKind: {},
    status: {},
    defects: [],
    internalErrors: {},
    slow: { sent: 0, closedByServer: 0 },
    rssBeforeMiB: 0,
    rssAfterMiB: 0,
    crashed: false,
    memory: [],
  };
  let probe;
  try {
    const http = new HttpConnection(httpPort);
    for (let tries = 0; ; tries++) {
      try {
        await http.send('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}');
        break;
      } catch {
        if (tries > 600 || child.exitCode !== null) throw new Error(`node did not start:\n${output}`);
        await sleep(100);
      }
    }
    const { allMethods } = await import(join(ROOT, 'dist/rpc/methods/index.js'));
    // miner_start is left out: it starts ethash mining, whose first cache generation holds the node's
    // event loop for seconds (tens under load), which would time requests out for reasons outside the
    // RPC layer this run measures.
    const methods = [
      ...new Set(allMethods.map((m) => m.name).filter((name) => name !== 'miner_start')),
      'eth_subscribe',
      'eth_unsubscribe',
      'no_such_method',
      '',
    ];
    const values = hostileValues(rand);
    const internal = new Map();
    internal.samples = [];
    // Warm up, then take the baseline.
    for (let i = 0; i < 200; i++) {
      const req = generate(rand, methods, values);
      try {
        await http.send(req.body);
      } catch (err) {
        result.defects.push({
          kind: req.kind,
          defect: `warm-up: ${err.message}`,
          request: String(req.body).slice(0, 200),
        });
      }
    }
    result.rssBeforeMiB = rssMiB(child.pid);
    if (inspectorPort) {
      probe = await InspectorProbe.connect(inspectorPort);
      result.memory.push({ requests: 0, ...(await probe.sample()) });
      log(`memory at 0 requests: ${JSON.stringify(result.memory.at(-1))}`);
    }

    const slow = Array.from({ length: slowSenders }, () => slowSender(httpPort, slowMs));
    let next = 0;
    const worker = async () => {
      const h = new HttpConnection(httpPort);
      const w = new WsConnection(`ws://127.0.0.1:${wsPort}`);
      try {
        while (next < requests) {
          next++;
          const req = generate(rand, methods, values);
          result.byKind[req.kind] = (result.byKind[req.kind] ?? 0) + 1;
          const method =
            /"method":"([^"]*)"/.exec(typeof req.body === 'string' ? req.body.slice(0, 300) : '')?.[1] ??
            '(none)';
          try {
            if (rand() < wsShare) {
              result.ws++;
              const { answers, closed } = await w.send(req.body);
              if (closed) result.status.wsClosed = (result.status.wsClosed ?? 0) + 1;
              for (const a of answers) {
                const defect = checkBody(a, internal, method, String(req.body));
                if (defect)
                  result.defects.push({
                    transport: 'ws',
                    kind: req.kind,
                    defect,
                    request: String(req.body).slice(0, 200),
                  });
              }
            } else {
              result.http++;
              const r = await h.send(req.body);
              result.status[r.status] = (result.status[r.status] ?? 0) + 1;
              if (r.status >= 500)
                result.defects.push({
                  transport: 'http',
                  kind: req.kind,
                  defect: `HTTP ${r.status}`,
                  request: String(req.body).slice(0, 200),
                });
              const defect =
                r.status === 200 || r.status === 400
                  ? checkBody(r.body, internal, method, String(req.body))
                  : undefined;
              if (defect)
                result.defects.push({
                  transport: 'http',
                  kind: req.kind,
                  defect,
                  request: String(req.body).slice(0, 200),
                });
            }
          } catch (err) {
            result.defects.push({
              kind: req.kind,
              defect: err.message,
              request: String(req.body).slice(0, 200),
            });
            if (child.exitCode !== null) throw new Error(`node died:\n${output}`);
          }
          result.requests++;
          if (result.requests % 10_000 === 0) {
            log(
              `${result.requests} requests, ${result.defects.length} defects, RSS ${rssMiB(child.pid).toFixed(0)} MiB`,
            );
            if (probe) {
              const at = result.requests;
              const sample = await probe.sample();
              result.memory.push({ requests: at, ...sample });
              log(`memory at ${at} requests (after a full GC): ${JSON.stringify(sample)}`);
              if (heapSnapshots && at === 10_000)
                await probe.snapshot(join(heapSnapshots, 'at-10000.heapsnapshot'));
            }
          }
        }
      } finally {
        h.close();
        w.close();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    for (const s of await Promise.all(slow)) {
      result.slow.sent++;
      if (s.closedByServer) result.slow.closedByServer++;
    }
    await sleep(500);
    result.rssAfterMiB = rssMiB(child.pid);
    if (probe) {
      result.memory.push({ requests: result.requests, after: true, ...(await probe.sample()) });
      log(`memory after the run (after a full GC): ${JSON.stringify(result.memory.at(-1))}`);
      if (heapSnapshots) await probe.snapshot(join(heapSnapshots, 'after.heapsnapshot'));
      probe.close();
    }
    // Still answering after everything.
    const last = await http.send('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}');
    if (last.status !== 200) result.defects.push({ defect: `final request answered ${last.status}` });
    http.close();
    result.internalErrors = Object.fromEntries(internal);
    result.internalErrorSamples = internal.samples;
  } finally {
    result.crashed = child.exitCode !== null;
    if (child.exitCode === null) {
      await new Promise((res) => {
        child.once('exit', res);
        process.kill(child.pid, 'SIGTERM');
      });
    }
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
    return hit ? Number(hit.split('=')[1]) : fallback;
  };
  const r = await runFuzz({
    requests: arg('requests', 100_000),
    seed: arg('seed', Date.now() % 100000),
    wsShare: arg('ws-share', 0.2),
    memoryProbe: process.argv.includes('--memory-probe'),
    heapSnapshots: process.argv.find((a) => a.startsWith('--heap-snapshots='))?.split('=')[1],
    log: (line) => console.log(line),
  });
  console.log(
    JSON.stringify({ ...r, defects: r.defects.slice(0, 20), defectCount: r.defects.length }, null, 2),
  );
  console.log(
    `\n${r.requests} requests (${r.http} HTTP, ${r.ws} WebSocket): ${r.defects.length} defects, statuses ${JSON.stringify(r.status)}, RSS ${r.rssBeforeMiB.toFixed(0)} → ${r.rssAfterMiB.toFixed(0)} MiB, slow senders closed ${r.slow.closedByServer}/${r.slow.sent}, crashed ${r.crashed}`,
  );
  process.exit(r.defects.length > 0 || r.crashed ? 1 : 0);
}
