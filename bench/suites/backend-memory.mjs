#!/usr/bin/env node
/**
 * Memory of one backend behind many connections, printed as one Markdown section: the node's resident
 * set size while `conns` clients each read the same `blocks` distinct full blocks
 * (eth_getBlockByNumber with transaction objects, one request in flight per client), once over
 * WebSocket (one connection per client) and once over HTTP (one keep-alive connection per client).
 * The same bound for both: `conns` clients × `blocks` requests, at most `seconds` s. Figures: RSS
 * before the load, RSS after it, the peak (VmHWM), and the wall time.
 *
 * A backend built once serves every connection from one response cache, so WebSocket and HTTP should
 * need about the same memory; a backend per connection shows up as RSS growing with `conns` over WS.
 *
 *   node bench/suites/backend-memory.mjs [--conns=80] [--blocks=1000] [--txs-per-block=4]
 *                                        [--seconds=300] [--bin=PATH to another build's bin/alder]
 *
 * The chain is generated once (bench/genchain.mjs, small blocks) and cached in $TMPDIR. The clients run
 * in a child process of this script (same file, worker mode) so they never share an event loop with
 * the node. Everything started here is stopped by PID.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { generateChain } from '../genchain.mjs';
import {
  BIN,
  fmt,
  freePort,
  killAll,
  log,
  memory,
  parseOptions,
  run,
  start,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const body = (id, n) =>
  `{"jsonrpc":"2.0","id":${id},"method":"eth_getBlockByNumber","params":["0x${n.toString(16)}",true]}`;

// ---------------------------------------------------------------------------------------------------
// Worker side (ALDER_MEMORY_BENCH_WORKER set): the clients

function wsClient(url, blocks, deadline) {
  return new Promise((resolveClient, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    let n = 1;
    let bytes = 0;
    ws.once('error', reject);
    ws.once('open', () => ws.send(body(n, n)));
    ws.on('message', (data) => {
      bytes += data.length;
      if (n >= blocks || Date.now() > deadline) {
        ws.close();
        resolveClient({ answers: n, bytes });
        return;
      }
      n++;
      ws.send(body(n, n));
    });
  });
}

async function httpClient(url, blocks, deadline) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(url);
  let bytes = 0;
  let n = 0;
  try {
    while (n < blocks && Date.now() <= deadline) {
      n++;
      const payload = body(n, n);
      bytes += await new Promise((res, rej) => {
        const req = request(
          {
            hostname,
            port,
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
          },
          (r) => {
            let size = 0;
            r.on('data', (d) => {
              size += d.length;
            });
            r.on('end', () => res(size));
            r.on('error', rej);
          },
        );
        req.on('error', rej);
        req.end(payload);
      });
    }
  } finally {
    agent.destroy();
  }
  return { answers: n, bytes };
}

async function worker() {
  const { transport, url, conns, blocks, seconds } = JSON.parse(process.env.ALDER_MEMORY_BENCH_WORKER);
  const deadline = Date.now() + seconds * 1000;
  const client = transport === 'ws' ? wsClient : httpClient;
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: conns }, () => client(url, blocks, deadline)));
  const answers = results.reduce((a, r) => a + r.answers, 0);
  const bytes = results.reduce((a, r) => a + r.bytes, 0);
  process.stdout.write(`${JSON.stringify({ answers, bytes, seconds: (performance.now() - t0) / 1000 })}\n`);
}

// ---------------------------------------------------------------------------------------------------
// Driver

async function cachedChain(blocks, txsPerBlock) {
  const dir = join(tmpdir(), 'alder-bench-memory-chain', `${blocks}-${txsPerBlock}`);
  const metaPath = join(dir, 'meta.json');
  if (existsSync(metaPath)) return JSON.parse(readFileSync(metaPath, 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`generating ${blocks} blocks of at most ${txsPerBlock} transactions → ${dir}`);
  const meta = await generateChain({ blocks, txsPerBlock, outDir: dir, log });
  const out = { genesisPath: meta.genesisPath, chainPath: meta.chainPath, txCount: meta.txCount };
  writeFileSync(metaPath, JSON.stringify(out));
  return out;
}

async function measure(bin, chain, dataDir, transport, opt) {
  const httpPort = await freePort();
  const wsPort = await freePort();
  const node = start(process.execPath, [
    bin,
    `--genesis-file=${chain.genesisPath}`,
    `--data-path=${dataDir}`,
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${httpPort}`,
    `--rpc-http-max-active-connections=${opt.conns + 20}`,
    '--rpc-ws-enabled',
    '--rpc-ws-host=127.0.0.1',
    `--rpc-ws-port=${wsPort}`,
    `--rpc-ws-max-active-connections=${opt.conns + 20}`,
  ]);
  try {
    await waitForRpc(`http://127.0.0.1:${httpPort}`, node);
    await new Promise((r) => setTimeout(r, 1000));
    const before = memory(node.pid);
    const url = transport === 'ws' ? `ws://127.0.0.1:${wsPort}` : `http://127.0.0.1:${httpPort}`;
    const load = await run(process.execPath, [import.meta.filename], {
      env: {
        ALDER_MEMORY_BENCH_WORKER: JSON.stringify({
          transport,
          url,
          conns: opt.conns,
          blocks: opt.blocks,
          seconds: opt.seconds,
        }),
      },
      timeoutSeconds: opt.seconds + 60,
    });
    const figures = JSON.parse(load.output.trim().split('\n').pop());
    const after = memory(node.pid);
    return { before, after, ...figures };
  } finally {
    await stop(node);
  }
}

async function main() {
  const opt = parseOptions({ conns: 80, blocks: 1000, 'txs-per-block': 4, seconds: 300, bin: BIN });
  const bin = resolve(String(opt.bin));
  const chain = await cachedChain(opt.blocks, opt['txs-per-block']);
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-memory-'));
  try {
    const dataDir = join(work, 'data');
    log(`importing ${opt.blocks} blocks (${chain.txCount} transactions) with ${bin}`);
    await run(process.execPath, [
      bin,
      `--genesis-file=${chain.genesisPath}`,
      `--data-path=${dataDir}`,
      'blocks',
      'import',
      `--from=${chain.chainPath}`,
    ]);
    const rows = [];
    for (const transport of ['ws', 'http']) {
      log(`${transport}: ${opt.conns} clients × ${opt.blocks} full blocks`);
      const r = await measure(bin, chain, dataDir, transport, opt);
      rows.push([
        transport === 'ws' ? 'WebSocket' : 'HTTP',
        fmt(r.answers),
        fmt(r.bytes / 2 ** 20, 1),
        fmt(r.before.rss),
        fmt(r.after.rss),
        fmt(r.after.peak),
        fmt(r.seconds, 1),
      ]);
    }
    process.stdout.write(
      `\n## Backend memory: ${opt.conns} clients each reading ${opt.blocks} distinct full blocks\n\n` +
        `Node: ${bin}\n\n${table(
          [
            'transport',
            'answers',
            'MiB received',
            'RSS before (MiB)',
            'RSS after (MiB)',
            'peak RSS (MiB)',
            'wall s',
          ],
          rows,
        )}\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.env.ALDER_MEMORY_BENCH_WORKER) {
  worker().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    killAll();
    process.exit(1);
  });
}
