#!/usr/bin/env node
/**
 * WebSocket JSON-RPC figures, printed as one Markdown section:
 *
 * 1. eth_blockNumber requests/s with p50/p99 latency over 1 and over 100 WebSocket connections, for
 *    Alder and, in the same run, Ganache, Hardhat's node and anvil (each serves WS on its HTTP port); ratio
 *    Alder / peer. Each connection keeps exactly one request in flight (sends the next as soon as the
 *    answer arrives). Medians over `runs` runs of at most `seconds` s / `ws-requests` answers each.
 * 2. newHeads fan-out: `subscribers` WebSocket connections each subscribed to newHeads. Alder mines
 *    on its dev network (`--miner-enabled`); the peers mine one block on `evm_mine` each time the
 *    previous block reached every subscriber. Per block: first→last delivery (spread across
 *    subscribers) and, for Alder, commit→last delivery, where commit is the node's own log line for
 *    the new head. Medians over at most `fanout-blocks` blocks in `fanout-seconds` s.
 *
 *   node bench/suites/ws.mjs [--runs=3] [--seconds=4] [--ws-requests=50000] [--subscribers=1000]
 *                            [--fanout-blocks=10] [--fanout-seconds=60] [--no-peers]
 *
 * The load runs in a child process of this script (same file, worker mode) so it never shares an event
 * loop with a node under test. Everything started here is stopped by PID.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import {
  BIN,
  fmt,
  freePort,
  killAll,
  log,
  median,
  parseOptions,
  rpc,
  start,
  startAnvilPeer,
  startGanachePeer,
  startHardhatPeer,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------
// Worker side (ALDER_WS_BENCH_WORKER set): the WebSocket clients

function connect(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('connect timeout'));
    }, 30_000);
    ws.once('open', () => {
      clearTimeout(timer);
      resolve(ws);
    });
    ws.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

async function connectAll(url, n) {
  const out = [];
  // In batches: a burst of a thousand handshakes at once is a different benchmark.
  for (let i = 0; i < n; i += 50) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => connect(url)))));
  }
  return out;
}

/** Closed-loop request load; prints {count, errors, seconds, rps, p50, p99}. */
async function loadWorker(spec) {
  const sockets = await connectAll(spec.url, spec.connections);
  const body = spec.body;
  const latencies = new Float64Array(spec.requests);
  let done = 0;
  let answered = 0;
  let errors = 0;
  let firstError;
  let measuring = false;
  let t0 = 0;
  let stopAt = Number.POSITIVE_INFINITY;
  const finished = [];
  for (const ws of sockets) {
    finished.push(
      new Promise((resolve) => {
        let sentAt = 0;
        const send = () => {
          if (now() >= stopAt || done >= spec.requests) return resolve();
          sentAt = performance.now();
          ws.send(body);
        };
        ws.on('message', (data) => {
          const ms = performance.now() - sentAt;
          answered++;
          if (measuring && done < spec.requests) {
            const text = data.toString();
            if (!text.includes('"result"')) {
              errors++;
              firstError ??= text.slice(0, 200);
            }
            latencies[done++] = ms;
          }
          send();
        });
        ws.on('close', () => resolve());
        send();
      }),
    );
  }
  // Warm-up, then the measured window.
  await sleep(spec.warmupMs);
  measuring = true;
  t0 = now();
  stopAt = t0 + spec.seconds * 1000;
  await Promise.all(finished);
  const seconds = (now() - t0) / 1000;
  for (const ws of sockets) ws.terminate();
  const sorted = Array.from(latencies.subarray(0, done)).sort((a, b) => a - b);
  const pct = (p) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
  return {
    count: done,
    answered,
    errors,
    firstError,
    seconds,
    rps: done / seconds,
    p50: pct(0.5),
    p99: pct(0.99),
  };
}

/**
 * newHeads subscribers; prints the arrival times per block. With `mineUrl`, mines each next block
 * (evm_mine) once the previous one reached everybody.
 */
async function fanoutWorker(spec) {
  const sockets = await connectAll(spec.url, spec.subscribers);
  const blocks = new Map();
  let complete = 0;
  let onComplete = () => undefined;
  const NUMBER = /"number":"(0x[0-9a-f]+)"/;
  await Promise.all(
    sockets.map(
      (ws, i) =>
        new Promise((resolve, reject) => {
          ws.once('message', (data) => {
            const text = data.toString();
            if (!text.includes('"result":"0x')) reject(new Error(`eth_subscribe failed: ${text}`));
            ws.on('message', (note) => {
              const at = now();
              const m = NUMBER.exec(note.toString());
              if (!m) return;
              let b = blocks.get(m[1]);
              if (!b) {
                b = { number: Number(m[1]), first: at, last: at, count: 0 };
                blocks.set(m[1], b);
              }
              b.last = at;
              if (++b.count === sockets.length) {
                complete++;
                onComplete();
              }
            });
            resolve();
          });
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['newHeads'] }));
        }),
    ),
  );
  const deadline = now() + spec.seconds * 1000;
  // One block more than asked for: the first one may have started before every subscription existed.
  const want = spec.blocks + 1;
  const mined = [];
  while (complete < want && now() < deadline) {
    const waitOne = new Promise((resolve) => {
      onComplete = resolve;
    });
    if (spec.mineUrl) {
      const sentAt = now();
      const r = await fetch(spec.mineUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
      });
      await r.json();
      mined.push({ sentAt, answeredAt: now() });
    }
    await Promise.race([waitOne, sleep(Math.max(0, deadline - now()))]);
  }
  for (const ws of sockets) ws.terminate();
  return {
    subscribers: sockets.length,
    blocks: [...blocks.values()].sort((a, b) => a.number - b.number),
    mined,
  };
}

if (process.env.ALDER_WS_BENCH_WORKER) {
  const spec = JSON.parse(readFileSync(process.env.ALDER_WS_BENCH_SPEC, 'utf8'));
  const run = process.env.ALDER_WS_BENCH_WORKER === 'load' ? loadWorker : fanoutWorker;
  run(spec).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`${err.stack ?? err}\n`);
      process.exit(1);
    },
  );
} else {
  main().catch((err) => {
    process.stderr.write(`ws bench failed: ${err.stack ?? err}\n`);
    killAll();
    process.exit(1);
  });
}

// ---------------------------------------------------------------------------------------------------
// Driver side

const opt = parseOptions({
  runs: 3,
  seconds: 4,
  'ws-requests': 50_000,
  subscribers: 1000,
  'fanout-blocks': 10,
  'fanout-seconds': 60,
});

async function worker(kind, spec, work, timeoutSeconds) {
  const file = join(work, `${kind}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(spec));
  const p = start(process.execPath, [import.meta.filename], {
    env: { ALDER_WS_BENCH_WORKER: kind, ALDER_WS_BENCH_SPEC: file },
  });
  const timer = setTimeout(() => process.kill(p.pid, 'SIGKILL'), timeoutSeconds * 1000);
  const { code, signal } = await p.exited;
  clearTimeout(timer);
  if (code !== 0)
    throw new Error(`${kind} worker exited with ${code ?? signal}:\n${p.output().slice(-2000)}`);
  return JSON.parse(p.stdout().trim().split('\n').pop());
}

const BLOCK_NUMBER = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}';
const DEV_COINBASE = '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73';
const PEER_KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';

async function startAlder(work, extra = []) {
  const dir = mkdtempSync(join(work, 'alder-'));
  const http = await freePort();
  const ws = await freePort();
  const proc = start(process.execPath, [
    BIN,
    '--network=dev',
    `--data-path=${dir}`,
    '--p2p-enabled=false',
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${http}`,
    '--rpc-ws-enabled',
    '--rpc-ws-host=127.0.0.1',
    `--rpc-ws-port=${ws}`,
    '--rpc-ws-max-active-connections=2000',
    ...extra,
  ]);
  const url = `http://127.0.0.1:${http}`;
  await waitForRpc(url, proc);
  return { proc, url, ws: `ws://127.0.0.1:${ws}` };
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU seconds used so far by a process and all its descendants (user + system, every thread). */
function treeCpuSeconds(pid) {
  const parent = new Map();
  const ticks = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name, which may itself hold spaces and parentheses.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(entry), Number(f[1]));
    ticks.set(Number(entry), Number(f[11]) + Number(f[12]));
  }
  let total = 0;
  for (const [p, t] of ticks) {
    for (let q = p; q > 1; q = parent.get(q) ?? 0) {
      if (q === pid) {
        total += t;
        break;
      }
    }
  }
  return total / CLOCK_TICKS;
}

/**
 * Median figures of `runs` load runs at one connection count, with the server's CPU time per answer
 * (all answers of the run, warm-up included): a figure that depends far less on what else the shared
 * machine is doing than requests/s does.
 */
async function measureLoad(wsUrl, pid, connections, work) {
  const results = [];
  for (let i = 0; i < opt.runs; i++) {
    const cpu0 = treeCpuSeconds(pid);
    const r = await worker(
      'load',
      {
        url: wsUrl,
        connections,
        body: BLOCK_NUMBER,
        requests: opt['ws-requests'],
        seconds: opt.seconds,
        warmupMs: 500,
      },
      work,
      opt.seconds + 60,
    );
    r.cpuMicros = ((treeCpuSeconds(pid) - cpu0) * 1e6) / r.answered;
    if (r.errors > 0) throw new Error(`${wsUrl}: ${r.errors} error answers, first: ${r.firstError}`);
    results.push(r);
  }
  return {
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    cpu: median(results.map((r) => r.cpuMicros)),
  };
}

/** Alder's new-head times (epoch ms) by block number, from its DEBUG `New head` log lines. */
function commitTimes(output) {
  const times = new Map();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.msg !== 'New head' || typeof entry.time !== 'number') continue;
    times.set(Number(entry.number), entry.time);
  }
  return times;
}

function fanoutFigures(result, commits) {
  const blocks = result.blocks
    .filter((b) => b.count === result.subscribers)
    .slice(1, opt['fanout-blocks'] + 1);
  const spread = blocks.map((b) => b.last - b.first);
  const fromCommit = commits
    ? blocks.filter((b) => commits.has(b.number)).map((b) => b.last - commits.get(b.number))
    : [];
  return {
    blocks: blocks.length,
    spread: median(spread),
    spreadMax: spread.length ? Math.max(...spread) : NaN,
    fromCommit: fromCommit.length ? median(fromCommit) : NaN,
  };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-ws-'));
  const out = ['## WebSocket JSON-RPC', ''];
  try {
    // -- eth_blockNumber over WS
    const servers = [];
    log('ws: Alder (dev network, no mining)');
    const alder = await startAlder(work);
    servers.push({ name: 'Alder', ws: alder.ws, proc: alder.proc });
    const peers = [];
    if (!opt['no-peers']) {
      for (const [name, startPeer] of [
        ['Ganache', () => startGanachePeer({ keys: [PEER_KEY], chainId: 1337 })],
        ['Hardhat', () => startHardhatPeer(work, { keys: [PEER_KEY], chainId: 1337 })],
        ['anvil', () => startAnvilPeer({ keys: [PEER_KEY], chainId: 1337 })],
      ]) {
        try {
          const p = await startPeer();
          peers.push({ name, ws: p.url.replace('http://', 'ws://'), url: p.url, proc: p.proc });
        } catch (err) {
          log(`ws: ${name} did not start: ${err.message.split('\n')[0]}`);
        }
      }
    }
    const rows = [];
    const figures = new Map();
    for (const connections of [1, 100]) {
      for (const s of [servers[0], ...peers]) {
        log(`ws: ${s.name} eth_blockNumber over ${connections} connection(s)`);
        try {
          figures.set(`${s.name}/${connections}`, await measureLoad(s.ws, s.proc.pid, connections, work));
        } catch (err) {
          log(`ws: ${s.name} failed: ${err.message.split('\n')[0]}`);
        }
      }
    }
    for (const connections of [1, 100]) {
      const a = figures.get(`Alder/${connections}`);
      for (const s of [servers[0], ...peers]) {
        const f = figures.get(`${s.name}/${connections}`);
        if (!f) {
          rows.push([`${s.name}, ${connections} conn.`, '-', '-', '-', '-', '-', '-']);
          continue;
        }
        rows.push([
          `${s.name}, ${connections} conn.`,
          fmt(f.rps),
          fmt(f.p50, 2),
          fmt(f.p99, 2),
          s.name === 'Alder' || !a ? '' : `${fmt(a.rps / f.rps, 2)}×`,
          fmt(f.cpu, 1),
          s.name === 'Alder' || !a ? '' : `${fmt(f.cpu / a.cpu, 2)}×`,
        ]);
      }
    }
    await stop(alder.proc);
    out.push(
      `eth_blockNumber over WebSocket, one request in flight per connection; medians of ${opt.runs} runs of ${opt.seconds} s ` +
        `(at most ${fmt(opt['ws-requests'])} answers each) after 0.5 s warm-up. Latency in ms, measured in a separate client process. ` +
        'Server CPU µs/req: user + system CPU time of the server process tree over the run divided by the answers it sent.',
      '',
      table(
        [
          'server',
          'requests/s',
          'p50 ms',
          'p99 ms',
          'Alder / peer',
          'server CPU µs/req',
          'peer CPU / Alder CPU',
        ],
        rows,
      ),
      '',
    );

    // -- newHeads fan-out
    const fanRows = [];
    log(`ws: Alder newHeads fan-out to ${opt.subscribers} subscribers (mining dev node)`);
    let alderMining;
    try {
      alderMining = await startAlder(work, [
        '--miner-enabled',
        `--miner-coinbase=${DEV_COINBASE}`,
        '--logging=DEBUG',
      ]);
    } catch (err) {
      fanRows.push(['Alder (mining)', '-', '-', '-', '-']);
      log(`ws: Alder with --miner-enabled did not start: ${err.message.split('\n')[0]}`);
    }
    if (alderMining) {
      try {
        // The first block comes once the Ethash epoch data is ready: connect when mining runs.
        const deadline = Date.now() + 120_000;
        while (Number(await rpc(alderMining.url, 'eth_blockNumber')) < 1 && Date.now() < deadline)
          await sleep(200);
        const r = await worker(
          'fanout',
          {
            url: alderMining.ws,
            subscribers: opt.subscribers,
            blocks: opt['fanout-blocks'],
            seconds: opt['fanout-seconds'],
          },
          work,
          opt['fanout-seconds'] + 120,
        );
        const f = fanoutFigures(r, commitTimes(alderMining.proc.output()));
        fanRows.push([
          'Alder (mining)',
          fmt(f.blocks),
          fmt(f.spread, 1),
          fmt(f.spreadMax, 1),
          fmt(f.fromCommit, 1),
        ]);
      } catch (err) {
        fanRows.push(['Alder (mining)', '-', '-', '-', '-']);
        log(`ws: Alder fan-out failed: ${err.message.split('\n')[0]}`);
      }
      await stop(alderMining.proc);
    }
    for (const p of peers) {
      log(`ws: ${p.name} newHeads fan-out to ${opt.subscribers} subscribers (evm_mine)`);
      try {
        const r = await worker(
          'fanout',
          {
            url: p.ws,
            subscribers: opt.subscribers,
            blocks: opt['fanout-blocks'],
            seconds: opt['fanout-seconds'],
            mineUrl: p.url,
          },
          work,
          opt['fanout-seconds'] + 120,
        );
        const f = fanoutFigures(r);
        fanRows.push([`${p.name} (evm_mine)`, fmt(f.blocks), fmt(f.spread, 1), fmt(f.spreadMax, 1), '-']);
      } catch (err) {
        fanRows.push([`${p.name} (evm_mine)`, '-', '-', '-', '-']);
        log(`ws: ${p.name} fan-out failed: ${err.message.split('\n')[0]}`);
      }
    }
    out.push(
      `newHeads fan-out to ${fmt(opt.subscribers)} subscribers (one WebSocket connection each, one client process). ` +
        'Per block: first→last = time between the first and the last subscriber receiving the notification; ' +
        "commit→last = from the node's `New head` debug log line, written when the block's LMDB commit " +
        'has completed and before any notification is sent (pino `time`, ms resolution), to the last delivery. ' +
        `Medians over up to ${opt['fanout-blocks']} fully delivered blocks (the first is skipped).`,
      '',
      table(
        ['node', 'blocks', 'first→last ms (median)', 'first→last ms (max)', 'commit→last ms (median)'],
        fanRows,
      ),
      '',
      'Figures are noisy: the machine is shared with other work while the benchmark runs.',
    );
    for (const p of peers) await stop(p.proc);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
