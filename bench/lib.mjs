/**
 * Shared plumbing of the benchmark suites: child processes stopped by PID, a JSON-RPC client for set-up,
 * medians, number formatting and Markdown tables, and the npm peers (Ganache, Hardhat's node).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { freePort } from './util.mjs';

export { freePort };

import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, bytesToHex, hexToBytes, privateToAddress } from '@ethereumjs/util';

export const ROOT = resolve(import.meta.dirname, '..');
export const BIN = join(ROOT, 'bin/alder');
const T_START = performance.now();

/** `--name=value` and `--flag` arguments over the defaults given. */
export function parseOptions(defaults, argv = process.argv.slice(2)) {
  const opt = { ...defaults };
  for (const a of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument ${a}`);
    opt[m[1]] = m[2] === undefined ? true : Number.isNaN(Number(m[2])) ? m[2] : Number(m[2]);
  }
  return opt;
}

/**
 * Collects this process's garbage now, with a full collection: a suite calls it after its unmeasured
 * set-up and before a measured phase, so that the set-up's garbage (signing thousands of transactions
 * leaves tens of megabytes) is not collected inside the measured window, where the collector's threads
 * would take the cores from the node under test (measured: ~270 ms of collection in the first 400 ms of
 * a phase, over a core's worth, without it).
 */
export function collectGarbage() {
  if (!globalThis.gc) {
    setFlagsFromString('--expose-gc');
    globalThis.gc = runInNewContext('gc');
  }
  globalThis.gc();
}

export function elapsedSeconds() {
  return (performance.now() - T_START) / 1000;
}

// ---------------------------------------------------------------------------------------------------
// Processes (each one started here is tracked and stopped by its PID)

export const children = new Set();

export function start(cmd, args, { env, cwd, inheritStderr = false } = {}) {
  const child = spawn(cmd, args, {
    stdio: ['ignore', 'pipe', inheritStderr ? 'inherit' : 'pipe'],
    env: { ...process.env, ...env },
    cwd,
  });
  children.add(child);
  let out = '';
  let stdout = '';
  const keep = (d) => {
    out += d;
    if (out.length > 1 << 20) out = out.slice(-(1 << 19));
  };
  child.stdout.on('data', (d) => {
    keep(d);
    if (stdout.length < 1 << 20) stdout += d;
  });
  child.stderr?.on('data', keep);
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  exited.then(() => children.delete(child));
  return { child, pid: child.pid, exited, output: () => out, stdout: () => stdout };
}

export async function stop(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  process.kill(proc.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) process.kill(proc.pid, 'SIGKILL');
  }, 10_000);
  await proc.exited;
  clearTimeout(timer);
}

export function killAll() {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) {
      try {
        process.kill(c.pid, 'SIGKILL');
      } catch {}
    }
  }
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killAll();
    process.exit(130);
  });
}

/** Runs a command to completion; returns wall seconds and output, throws on failure. */
export async function run(cmd, args, opts = {}) {
  const t0 = performance.now();
  const p = start(cmd, args, opts);
  const timer = setTimeout(() => process.kill(p.pid, 'SIGKILL'), (opts.timeoutSeconds ?? 900) * 1000);
  const { code, signal } = await p.exited;
  clearTimeout(timer);
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0)
    throw new Error(`${[cmd, ...args].join(' ')} exited with ${code ?? signal}:\n${p.output().slice(-4000)}`);
  return { seconds, output: p.output() };
}

/** CPU time (user + system) a process has used so far, in seconds (clock ticks of 10 ms). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident set size and its peak, in MiB, of a process. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return {
    rss: kb('VmRSS') / 1024,
    peak: kb('VmHWM') / 1024,
    anon: kb('RssAnon') / 1024,
    file: kb('RssFile') / 1024,
  };
}

// ---------------------------------------------------------------------------------------------------
// JSON-RPC client (set-up and checks only; the load itself goes through bench/load.mjs)

let rpcId = 0;
export async function rpc(url, method, params = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

export async function waitForRpc(url, proc, seconds = 90) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    if (proc.child.exitCode !== null)
      throw new Error(`server exited with ${proc.child.exitCode}:\n${proc.output().slice(-4000)}`);
    try {
      await rpc(url, 'eth_blockNumber');
      return;
    } catch {}
    if (Date.now() > deadline)
      throw new Error(`server did not answer within ${seconds} s:\n${proc.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------------
// Figures

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? s[(s.length - 1) / 2]
      : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const fmt = (x, digits = 0) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '-';
export const hex = (n) => `0x${BigInt(n).toString(16)}`;
export const log = (msg) =>
  process.stderr.write(`[${((performance.now() - T_START) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);

export function table(headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map(String));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [
    line(cells[0]),
    `|${widths.map((w, i) => (i === 0 ? ':' : '-') + '-'.repeat(w) + (i === 0 ? '-' : ':')).join('|')}|`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

/** Blocks, transactions and gas of a file of concatenated block RLP. */
export function chainStats(path) {
  const raw = readFileSync(path);
  let rest = raw;
  let blocks = 0;
  let txs = 0;
  let gas = 0;
  const gasByNumber = new Map();
  while (rest.length > 0) {
    const { data, remainder } = RLP.decode(rest, true);
    blocks++;
    const g = Number(bytesToBigInt(data[0][10]));
    gas += g;
    gasByNumber.set(Number(bytesToBigInt(data[0][8])), g);
    txs += data[1].length;
    rest = remainder;
  }
  return { blocks, txs, gas, gasByNumber };
}

/** Ganache on a free port, the given keys funded with 10^27 wei each; automine stays on. */
export async function startGanachePeer({ keys, chainId, gasLimit = 30_000_000 }) {
  const port = await freePort();
  const args = [
    join(ROOT, 'node_modules/ganache/dist/node/cli.js'),
    '--server.host=127.0.0.1',
    `--server.port=${port}`,
    `--chain.chainId=${chainId}`,
    `--miner.blockGasLimit=${gasLimit}`,
    '--logging.quiet',
    ...keys.map((k) => `--wallet.accounts=${k},${hex(10n ** 27n)}`),
  ];
  const proc = start(process.execPath, args);
  const url = `http://127.0.0.1:${port}`;
  await waitForRpc(url, proc);
  return { proc, url, automineOff: ['miner_stop'] };
}

/** Foundry's anvil binary (the npm package ships the Rust build). */
export const ANVIL = join(ROOT, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');

/**
 * Foundry's anvil on a free port of 127.0.0.1: as many dev accounts as keys (what eth_accounts lists,
 * for the suites that send with eth_sendTransaction), and the given keys funded with 10^27 wei each
 * through anvil_setBalance (anvil takes no private keys on its command line); automine stays on.
 */
export async function startAnvilPeer({ keys, chainId, gasLimit = 30_000_000, args = [] }) {
  const port = await freePort();
  const proc = start(ANVIL, [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(chainId),
    '--gas-limit',
    String(gasLimit),
    '--accounts',
    String(Math.max(1, keys.length)),
    '--balance',
    '1000000000',
    ...args,
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitForRpc(url, proc);
  for (const key of keys) {
    const address = bytesToHex(privateToAddress(hexToBytes(key)));
    await rpc(url, 'anvil_setBalance', [address, hex(10n ** 27n)]);
  }
  return { proc, url, automineOff: ['evm_setAutomine', [false]] };
}

/** Hardhat's node on a free port (bench/hardhat.config.cjs), the given keys funded; automine stays on. */
export async function startHardhatPeer(work, { keys, chainId }) {
  const port = await freePort();
  const dir = join(work, 'hardhat');
  mkdirSync(dir, { recursive: true });
  const proc = start(
    process.execPath,
    [
      join(ROOT, 'node_modules/hardhat/internal/cli/bootstrap.js'),
      '--config',
      join(import.meta.dirname, 'hardhat.config.cjs'),
      'node',
      '--hostname',
      '127.0.0.1',
      '--port',
      String(port),
    ],
    {
      env: {
        HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
        ALDER_BENCH_KEYS: keys.join(','),
        ALDER_BENCH_CHAIN_ID: String(chainId),
        ALDER_BENCH_HARDHAT_DIR: dir,
      },
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForRpc(url, proc);
  return { proc, url, automineOff: ['evm_setAutomine', [false]] };
}
