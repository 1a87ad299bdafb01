#!/usr/bin/env node
/**
 * Soak: a mining dev node under a fixed mixed load for a set time (not part of the tests).
 *
 *   npm run soak -- --minutes=30 [--reads=40] [--writes=4] [--engine=ethash|clique]
 *
 * Load, at fixed rates: `--reads` JSON-RPC reads per second over HTTP (block number, balances, blocks,
 * receipts, logs, calls, fee history), `--writes` signed transfers per second, two WebSocket
 * subscriptions (newHeads, logs) read for the whole run, and a block filter and a log filter polled
 * every second. Each minute prints the node's RSS, its event-loop lag (the latency of a trivial request
 * sent every 100 ms on its own connection, less the best latency seen: the time the request waited for
 * the node's event loop) and the p50/p99 latency of the load's requests; the end prints each figure's
 * first and last minute and its trend (least-squares slope per minute).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { LONDON_AT_GENESIS } from './genchain.mjs';
import { freePort, sleep } from './util.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/alder');
const SENDER_KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';
const RECIPIENT = '0x627306090abab3a6e1400e9345bc60c78a8bef57';
const COINBASE = '0x00000000000000000000000000000000000c0ffe';
const SIGNER_KEY = '0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f';
const SIGNER = 'f17f52151ebef6c7334fad080c5704d77216b732';

const arg = (name, fallback) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.split('=')[1] : fallback;
};
const minutes = Number(arg('minutes', '30'));
const readsPerSecond = Number(arg('reads', '40'));
const writesPerSecond = Number(arg('writes', '4'));
const engine = arg('engine', 'ethash');

function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

function percentile(values, p) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function slope(ys) {
  const n = ys.length;
  if (n < 2) return 0;
  const mx = (n - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  });
  return num / den;
}

const dir = mkdtempSync(join(tmpdir(), 'alder-soak-'));
const httpPort = await freePort();
const wsPort = await freePort();
let chainId = 1337;
let networkArgs = ['--network=dev', '--miner-enabled', `--miner-coinbase=${COINBASE}`];
if (engine === 'clique') {
  chainId = 4242;
  const genesis = {
    config: { chainId, ...LONDON_AT_GENESIS, clique: { blockperiodseconds: 2, epochlength: 30000 } },
    nonce: '0x0',
    timestamp: '0x0',
    gasLimit: '0x1c9c380',
    difficulty: '0x1',
    extraData: `0x${'00'.repeat(32)}${SIGNER}${'00'.repeat(65)}`,
    alloc: { [privateKeyToAccount(SENDER_KEY).address]: { balance: '0x3635c9adc5dea00000' } },
  };
  writeFileSync(join(dir, 'genesis.json'), JSON.stringify(genesis));
  writeFileSync(join(dir, 'signer.key'), SIGNER_KEY);
  networkArgs = [
    `--genesis-file=${join(dir, 'genesis.json')}`,
    `--node-private-key-file=${join(dir, 'signer.key')}`,
  ];
}
const child = spawn(
  process.execPath,
  [
    BIN,
    '--p2p-enabled=false',
    ...networkArgs,
    `--data-path=${join(dir, 'data')}`,
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${httpPort}`,
    '--rpc-ws-enabled',
    '--rpc-ws-host=127.0.0.1',
    `--rpc-ws-port=${wsPort}`,
  ],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
const url = `http://127.0.0.1:${httpPort}`;

async function rpc(method, params = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

for (let i = 0; ; i++) {
  try {
    await rpc('eth_chainId');
    break;
  } catch {
    if (i > 1200 || child.exitCode !== null) throw new Error('node did not start');
    await sleep(100);
  }
}

const account = privateKeyToAccount(SENDER_KEY);
let nonce = Number(await rpc('eth_getTransactionCount', [account.address, 'pending']));
const sentHashes = [];
let latencies = [];
let lags = [];
let bestProbe = Number.POSITIVE_INFINITY;
const counters = { requests: 0, errors: 0, txs: 0, notifications: 0, filterPolls: 0 };
let running = true;

async function timed(method, params) {
  const t = performance.now();
  try {
    await rpc(method, params);
  } catch {
    counters.errors++;
  }
  latencies.push(performance.now() - t);
  counters.requests++;
}

const reads = [
  () => timed('eth_blockNumber'),
  () => timed('eth_getBalance', [RECIPIENT, 'latest']),
  () => timed('eth_getBlockByNumber', ['latest', true]),
  () =>
    timed('eth_getTransactionReceipt', [
      sentHashes[Math.floor(Math.random() * sentHashes.length)] ?? `0x${'00'.repeat(32)}`,
    ]),
  () => timed('eth_getLogs', [{ fromBlock: 'earliest', toBlock: 'latest' }]),
  () => timed('eth_call', [{ to: RECIPIENT, data: '0x' }, 'latest']),
  () => timed('eth_feeHistory', ['0x5', 'latest', [25, 75]]),
  () => timed('eth_gasPrice'),
];

/** Runs `task` `perSecond` times a second (open loop: a slow answer does not slow the rate). */
function atRate(perSecond, task) {
  if (perSecond <= 0) return;
  const interval = 1000 / perSecond;
  let next = performance.now();
  const tick = () => {
    if (!running) return;
    next += interval;
    task().catch(() => {
      counters.errors++;
    });
    setTimeout(tick, Math.max(0, next - performance.now()));
  };
  tick();
}

let r = 0;
atRate(readsPerSecond, () => reads[r++ % reads.length]());
atRate(writesPerSecond, async () => {
  const raw = await account.signTransaction({
    chainId,
    type: 'eip1559',
    nonce: nonce++,
    to: RECIPIENT,
    value: 1n,
    gas: 21_000n,
    maxFeePerGas: 50_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  const t = performance.now();
  try {
    const hash = await rpc('eth_sendRawTransaction', [raw]);
    sentHashes.push(hash);
    if (sentHashes.length > 1000) sentHashes.shift();
    counters.txs++;
  } catch {
    counters.errors++;
    nonce = Number(await rpc('eth_getTransactionCount', [account.address, 'pending']));
  }
  latencies.push(performance.now() - t);
  counters.requests++;
});

// Subscriptions, read for the whole run.
const ws = new WebSocket(`ws://127.0.0.1:${wsPort}`);
await new Promise((res, rej) => {
  ws.once('open', res);
  ws.once('error', rej);
});
ws.on('message', (d) => {
  if (d.toString().includes('eth_subscription')) counters.notifications++;
});
ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['logs', {}] }));
ws.send(
  JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_subscribe', params: ['newPendingTransactions'] }),
);

// Filters, polled every second.
const blockFilter = await rpc('eth_newBlockFilter');
const logFilter = await rpc('eth_newFilter', [{ fromBlock: 'latest' }]);
atRate(1, async () => {
  await timed('eth_getFilterChanges', [blockFilter]);
  await timed('eth_getFilterChanges', [logFilter]);
  counters.filterPolls++;
});

// Event-loop probe: a trivial method on its own keep-alive connection every 100 ms.
const probe = setInterval(async () => {
  const t = performance.now();
  try {
    await rpc('web3_clientVersion');
  } catch {
    return;
  }
  const ms = performance.now() - t;
  bestProbe = Math.min(bestProbe, ms);
  lags.push(ms);
}, 100);

const rows = [];
const started = Date.now();
console.log(
  `soak: ${minutes} min, ${readsPerSecond} reads/s, ${writesPerSecond} transfers/s, 3 subscriptions, 2 filters polled each second (${engine})`,
);
console.log('min  RSS MiB  lag p50/p99 ms  latency p50/p99 ms  requests  errors  txs  head  notifications');
for (let m = 1; m <= minutes; m++) {
  await sleep(started + m * 60_000 - Date.now());
  const head = Number(await rpc('eth_blockNumber'));
  const row = {
    minute: m,
    rss: rssMiB(child.pid),
    lagP50: percentile(lags, 50) - bestProbe,
    lagP99: percentile(lags, 99) - bestProbe,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests: counters.requests,
    errors: counters.errors,
    txs: counters.txs,
    head,
    notifications: counters.notifications,
  };
  rows.push(row);
  console.log(
    `${String(m).padStart(3)}  ${row.rss.toFixed(0).padStart(7)}  ${row.lagP50.toFixed(1).padStart(6)}/${row.lagP99.toFixed(1).padEnd(7)}  ${row.p50.toFixed(1).padStart(8)}/${row.p99.toFixed(1).padEnd(9)}  ${String(row.requests).padStart(8)}  ${String(row.errors).padStart(6)}  ${String(row.txs).padStart(4)}  ${String(head).padStart(4)}  ${row.notifications}`,
  );
  latencies = [];
  lags = [];
  for (const k of Object.keys(counters)) counters[k] = 0;
}
running = false;
clearInterval(probe);
ws.terminate();
const trend = (name, key, unit) => {
  const ys = rows.map((x) => x[key]);
  console.log(
    `${name}: first ${ys[0]?.toFixed(1)} ${unit}, last ${ys.at(-1)?.toFixed(1)} ${unit}, trend ${slope(ys) >= 0 ? '+' : ''}${slope(ys).toFixed(2)} ${unit}/min`,
  );
};
console.log('');
trend('RSS', 'rss', 'MiB');
trend('event-loop lag p99', 'lagP99', 'ms');
trend('request latency p99', 'p99', 'ms');
await new Promise((res) => {
  child.once('exit', res);
  process.kill(child.pid, 'SIGTERM');
});
rmSync(dir, { recursive: true, force: true });
