#!/usr/bin/env node
/**
 * Transaction throughput: N signed ETH transfers, then N ERC-20 transfers, from many senders, sent
 * with eth_sendRawTransaction as fast as the node takes them (bounded concurrency, each sender's
 * nonces in order), then waited for until every one is mined. Signing happens before the clock
 * starts. Figures: the send-phase rate (transactions accepted per second) and the end-to-end rate
 * (count / time from the first send to the last receipt). Alder runs the dev network with mining
 * on; Hardhat's node and Ganache run in the same process tree with automine, as they ship. Foundry's
 * anvil runs with interval mining every --tx-anvil-block-time seconds (0.2 by default) and a block
 * gas limit that never binds: its automine stops mining under this load (probed with anvil 1.7.1 and
 * this sending pattern: block production slowed from ~300 to ~20 one-transaction blocks per second,
 * then no block came at all while 2,900 ready transactions waited in its pool, which matches
 * foundry-rs/foundry#10122). --tx-anvil-block-time=0 measures its automine as it ships.
 * A phase whose node mines nothing for --tx-stall-seconds (15) while transactions are outstanding
 * stops waiting and is reported as stalled, with what was mined.
 *
 *   node bench/suites/tx-throughput.mjs [--tx-count=10000] [--tx-senders=100] [--tx-concurrency=32]
 *        [--tx-phase-seconds=600] [--tx-stall-seconds=15] [--tx-anvil-block-time=0.2]
 *        [--tx-nodes=alder,hardhat,anvil,ganache] [--tx-runs=1] [--tx-profile] [--tx-node-log=FILE]
 *        [--tx-warmup=0] [--no-peers]
 *
 * --tx-warmup=N sends every node N ETH and N ERC-20 transfers (to other recipients) before the measured
 * phases and waits until they are mined, unmeasured: the figures are then those of a node whose code
 * paths have run before (a JIT-compiled node such as Alder or Hardhat's node optimises its hot functions
 * during the first thousands of transactions). The default, 0, measures nodes as they come up.
 *
 * --tx-profile runs Alder under `node --cpu-prof` and prints the functions with the most self time
 * (--tx-profile=DIR also keeps the .cpuprofile file in DIR). --tx-node-log=FILE writes Alder's own output
 * (its log: one "Produced block" line per block with build, seal and commit times) to FILE.
 * --tx-runs=N measures every node N times, in rounds (each node once per round, a fresh node and data
 * directory each time), and reports per node and phase the run with the median mined rate.
 * Prints a Markdown section on stdout, progress on stderr; every process started here is stopped by PID.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { signDevTx } from '../devSigning.mjs';
import { accountKey, addressOf, keccak256, SELECTORS, tokenInitCode } from '../genchain.mjs';
import { rawJsonRpc } from '../httpRaw.mjs';
import {
  BIN,
  collectGarbage,
  fmt,
  freePort,
  killAll,
  log,
  memory,
  parseOptions,
  ROOT,
  rpc,
  start,
  startAnvilPeer,
  startGanachePeer,
  startHardhatPeer,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const opt = parseOptions({
  'tx-count': 10_000,
  'tx-senders': 100,
  'tx-concurrency': 32,
  'tx-phase-seconds': 600,
  'tx-stall-seconds': 15,
  'tx-anvil-block-time': 0.2,
  'tx-nodes': 'alder,hardhat,anvil,ganache',
  'tx-runs': 1,
  'tx-warmup': 0,
});
const NODES = new Set(String(opt['tx-nodes']).split(','));
const COUNT = opt['tx-count'];
const RUNS = Math.max(1, Number(opt['tx-runs']));
const SENDERS = Math.min(opt['tx-senders'], COUNT);
const CONCURRENCY = opt['tx-concurrency'];
const PHASE_MS = opt['tx-phase-seconds'] * 1000;
const STALL_MS = opt['tx-stall-seconds'] * 1000;
const ANVIL_BLOCK_TIME = Number(opt['tx-anvil-block-time']);
const WARMUP = Math.max(0, Number(opt['tx-warmup']));

const CHAIN_ID = 1337n;
/** A prefunded dev-network key (public test key); the peers fund it too. */
const FUNDER = hexToBytes('0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3');
const COINBASE = '0x00000000000000000000000000000000000c0ffe';

// ---------------------------------------------------------------------------------------------------
// Signing (native secp256k1, outside the measured time)

function sign(key, fields) {
  const tx = signDevTx(key, fields);
  return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
}

const word = (v) => setLengthLeft(typeof v === 'bigint' ? bigIntToBytes(v) : v, 32);
const transferData = (to, amount) => concatBytes(SELECTORS.transfer, word(hexToBytes(to)), word(amount));

const senderKeys = Array.from({ length: SENDERS }, (_, i) => accountKey(10_000 + i));
const senders = senderKeys.map((k) => addressOf(k).toString());
const funder = addressOf(FUNDER).toString();
/** Recipients that hold nothing yet: every transfer writes a fresh account or slot, as in real traffic. */
const recipient = (kind, i) => bytesToHex(keccak256(new TextEncoder().encode(`${kind}-${i}`)).subarray(12));

/** `count` transactions dealt round-robin over the senders, each sender's nonces from `firstNonce`. */
function signBatch(firstNonce, make, count) {
  const lanes = senders.map(() => []);
  for (let i = 0; i < count; i++) {
    const s = i % SENDERS;
    const nonce = firstNonce + BigInt(lanes[s].length);
    lanes[s].push(sign(senderKeys[s], { nonce, ...make(i) }));
  }
  return lanes;
}

// ---------------------------------------------------------------------------------------------------
// Sending: a keep-alive HTTP client, one lane (sender) at a time per worker, nonces in order

/** Ganache, for one, may hold an answer back indefinitely: no request waits longer than this. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The sender's JSON-RPC client: the benches' lean keep-alive client (httpRaw.mjs), one socket per
 * sending worker, so the load generator takes little of the CPU the node under test needs.
 */
function makeClient(url) {
  return rawJsonRpc(url, { connections: CONCURRENCY, timeoutMs: REQUEST_TIMEOUT_MS });
}

async function sendLanes(call, lanes, deadline) {
  let errors = 0;
  let firstError;
  let sent = 0;
  // Worker w owns senders w, w+C, …; it sends their transactions interleaved, each answer awaited.
  const workers = Array.from({ length: Math.min(CONCURRENCY, lanes.length) }, async (_, w) => {
    const mine = lanes.filter((_, i) => i % CONCURRENCY === w);
    const longest = Math.max(...mine.map((l) => l.length));
    for (let r = 0; r < longest; r++) {
      for (const lane of mine) {
        const tx = lane[r];
        if (!tx) continue;
        if (performance.now() > deadline) return;
        const res = await call({ method: 'eth_sendRawTransaction', params: [tx.raw] }).catch((err) => ({
          error: { message: err.message },
        }));
        if (res.error || res.result !== tx.hash) {
          errors++;
          firstError ??= res.error?.message ?? `unexpected result ${res.result}`;
        } else sent++;
      }
    }
  });
  await Promise.all(workers);
  return { sent, errors, firstError };
}

/**
 * Waits until every sender's mined nonce reaches its target; resolves with the time that was seen,
 * `undefined` at the phase deadline, or `stalled` when no sender's nonce moved for STALL_MS.
 */
async function waitMined(call, targets, deadline) {
  const left = new Set(targets.keys());
  /** Each sender's mined nonce at the last poll: any change is progress. */
  const seen = new Map();
  let progressAt = performance.now();
  while (left.size > 0) {
    if (performance.now() > deadline) return undefined;
    const ids = [...left];
    const res = await call(
      ids.map((s, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_getTransactionCount',
        params: [senders[s], 'latest'],
      })),
    ).catch(() => []);
    const now = performance.now();
    let moved = false;
    for (const r of res) {
      if (r.result === undefined) continue;
      const nonce = BigInt(r.result);
      const s = ids[r.id];
      if (nonce !== seen.get(s)) moved = true;
      seen.set(s, nonce);
      if (nonce >= targets.get(s)) left.delete(s);
    }
    if (left.size === 0) return now;
    if (moved) progressAt = now;
    else if (now - progressAt > STALL_MS) return 'stalled';
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now();
}

/** Every sender's pending nonce by sender index (none when the node does not answer). */
async function pendingNonces(call) {
  const nonces = new Map();
  const res = await call(
    senders.map((a, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'eth_getTransactionCount',
      params: [a, 'pending'],
    })),
  ).catch(() => []);
  for (const r of res) nonces.set(r.id, BigInt(r.result ?? 0));
  return nonces;
}

/** Every receipt (after the clock stopped): how many succeeded, and the blocks they landed in. */
async function checkReceipts(call, lanes) {
  const hashes = lanes.flat().map((t) => t.hash);
  let ok = 0;
  let missing = 0;
  const blocks = new Set();
  for (let i = 0; i < hashes.length; i += 200) {
    const res = await call(
      hashes
        .slice(i, i + 200)
        .map((h, j) => ({ jsonrpc: '2.0', id: j, method: 'eth_getTransactionReceipt', params: [h] })),
    ).catch(() => []);
    missing += Math.min(200, hashes.length - i) - res.length;
    for (const r of res) {
      if (!r.result) missing++;
      else {
        if (r.result.status === '0x1') ok++;
        blocks.add(r.result.blockNumber);
      }
    }
  }
  return { ok, missing, blocks: blocks.size };
}

/** Clock ticks per second of /proc's utime/stime (USER_HZ, 100 on Linux). */
const TICK_US = 10_000;
/**
 * CPU time (µs, user + system) a process has used so far: the main thread alone (its task has the
 * process's id) and all its threads; undefined where /proc cannot be read.
 */
function cpuTimes(pid) {
  if (pid === undefined) return undefined;
  const ticks = (file) => {
    const stat = readFileSync(file, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  };
  try {
    return { main: ticks(`/proc/${pid}/task/${pid}/stat`), all: ticks(`/proc/${pid}/stat`) };
  } catch {
    return undefined;
  }
}

/** Now on the monotonic clock a CPU profile's timestamps use (microseconds). */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

async function phase(call, name, lanes, pid) {
  // The set-up's garbage (signing, the previous phase's receipts) is collected before the clock starts.
  collectGarbage();
  const cpu0 = cpuTimes(pid);
  const from = monotonicUs();
  const deadline = performance.now() + PHASE_MS;
  const t0 = performance.now();
  const sendResult = await sendLanes(call, lanes, deadline);
  const tSent = performance.now();
  const finals = await pendingNonces(call);
  const waited = finals.size === senders.length ? await waitMined(call, finals, t0 + PHASE_MS) : undefined;
  const stalled = waited === 'stalled';
  const tDone = stalled ? undefined : waited;
  const cpu1 = cpuTimes(pid);
  const window = [from, monotonicUs()];
  const receipts = await checkReceipts(call, lanes);
  const result = {
    name,
    count: COUNT,
    ...sendResult,
    sendSeconds: (tSent - t0) / 1000,
    totalSeconds: tDone === undefined ? undefined : (tDone - t0) / 1000,
    stalled,
    window,
    ...receipts,
  };
  result.sendRate = result.sent / result.sendSeconds;
  if (cpu0 && cpu1 && receipts.ok > 0) {
    result.mainCpuPerTx = (cpu1.main - cpu0.main) / receipts.ok;
    result.allCpuPerTx = (cpu1.all - cpu0.all) / receipts.ok;
  }
  result.rate = result.totalSeconds === undefined ? Number.NaN : result.ok / result.totalSeconds;
  log(
    `  ${name}: sent ${result.sent} (${result.errors} errors${result.firstError ? `: ${result.firstError}` : ''}) in ${fmt(result.sendSeconds, 1)} s = ${fmt(result.sendRate)} tx/s; ` +
      `mined ${result.ok} ok, ${result.missing} missing, in ${result.blocks} blocks; ` +
      `${result.totalSeconds === undefined ? (stalled ? `stalled (nothing mined for ${opt['tx-stall-seconds']} s)` : 'timed out') : `${fmt(result.totalSeconds, 1)} s = ${fmt(result.rate)} tx/s`}` +
      (result.mainCpuPerTx === undefined
        ? ''
        : `; CPU per mined tx: main thread ${fmt(result.mainCpuPerTx)} µs, all threads ${fmt(result.allCpuPerTx)} µs`),
  );
  return result;
}

// ---------------------------------------------------------------------------------------------------
// Set-up per node (not measured): senders funded with ETH, the token deployed, senders given tokens

async function waitReceipt(url, hash, seconds = opt['tx-phase-seconds']) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const r = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} within ${seconds} s`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function sendAll(url, txs) {
  for (const t of txs) {
    const h = await rpc(url, 'eth_sendRawTransaction', [t.raw]);
    if (h !== t.hash) throw new Error(`set-up transaction answered ${h}`);
  }
  for (const t of txs) {
    const r = await waitReceipt(url, t.hash);
    if (r.status !== '0x1') throw new Error(`set-up transaction ${t.hash} failed`);
  }
}

async function prepare(url, { fundSenders }) {
  let nonce = BigInt(await rpc(url, 'eth_getTransactionCount', [funder, 'pending']));
  if (fundSenders) {
    await sendAll(
      url,
      senders.map((to) => sign(FUNDER, { nonce: nonce++, gasLimit: 21_000n, to, value: 10n ** 20n })),
    );
  }
  const deploy = sign(FUNDER, { nonce: nonce++, gasLimit: 1_000_000n, data: tokenInitCode() });
  await sendAll(url, [deploy]);
  const token = (await rpc(url, 'eth_getTransactionReceipt', [deploy.hash])).contractAddress;
  await sendAll(
    url,
    senders.map((to) =>
      sign(FUNDER, { nonce: nonce++, gasLimit: 100_000n, to: token, data: transferData(to, 10n ** 24n) }),
    ),
  );
  const first = BigInt(await rpc(url, 'eth_getTransactionCount', [senders[0], 'pending']));
  return { token, first };
}

/** Sends `lanes` as a phase does and waits until they are mined, unmeasured (--tx-warmup). */
async function warmUp(call, lanes) {
  const deadline = performance.now() + PHASE_MS;
  const sent = await sendLanes(call, lanes, deadline);
  if (sent.errors > 0) throw new Error(`warm-up: ${sent.firstError}`);
  const targets = await pendingNonces(call);
  if (targets.size !== senders.length) throw new Error('warm-up: no pending nonces');
  const done = await waitMined(call, targets, deadline);
  if (typeof done !== 'number') throw new Error('warm-up transactions were not mined');
}

/**
 * `count` ETH transfers, then `count` transfers of `token`, each to a recipient of its own (named with
 * `prefix`), the ETH ones from each sender's nonce `first`; `next` is the nonce after both.
 */
function signTransfers(first, token, prefix, count) {
  const perSender = BigInt(Math.ceil(count / SENDERS));
  const eth = signBatch(
    first,
    (i) => ({ gasLimit: 21_000n, to: recipient(`${prefix}eth`, i), value: 1n }),
    count,
  );
  const erc20 = signBatch(
    first + perSender,
    (i) => ({ gasLimit: 80_000n, to: token, data: transferData(recipient(`${prefix}erc20`, i), 1n) }),
    count,
  );
  return { eth, erc20, next: first + 2n * perSender };
}

async function measure(name, url, { fundSenders, pid }) {
  log(`${name}: set-up (${SENDERS} senders${fundSenders ? ' funded' : ''}, token deployed and distributed)`);
  let { token, first } = await prepare(url, { fundSenders });
  if (WARMUP > 0) {
    log(`${name}: warm-up, ${WARMUP} ETH and ${WARMUP} token transfers (not measured)`);
    const warm = signTransfers(first, token, 'warm-', WARMUP);
    const call = makeClient(url);
    try {
      await warmUp(call, warm.eth);
      await warmUp(call, warm.erc20);
    } finally {
      call.close();
    }
    first = warm.next;
  }
  log(`${name}: signing ${COUNT} ETH and ${COUNT} token transfers`);
  const { eth, erc20 } = signTransfers(first, token, '', COUNT);
  const call = makeClient(url);
  log(`${name}: ETH transfers`);
  const ethResult = await phase(call, 'ETH transfers', eth, pid);
  log(`${name}: ERC-20 transfers`);
  const tokenResult = await phase(call, 'ERC-20 transfers', erc20, pid);
  call.close();
  return { eth: ethResult, erc20: tokenResult };
}

// ---------------------------------------------------------------------------------------------------
// Nodes

async function startAlder(work, profileDir) {
  const port = await freePort();
  const data = join(work, 'alder');
  const args = [
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    BIN,
    '--network=dev',
    `--data-path=${data}`,
    '--p2p-enabled=false',
    '--miner-enabled',
    `--miner-coinbase=${COINBASE}`,
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${port}`,
    // The sequenced pool's default (4096) is below one phase; Besu's layered pool holds far more.
    `--tx-pool-max-size=${COUNT + SENDERS + 100}`,
  ];
  const proc = start(process.execPath, args);
  const url = `http://127.0.0.1:${port}`;
  await waitForRpc(url, proc);
  return { proc, url };
}

/**
 * Self time per function of a .cpuprofile during the measured phases (`windows`, monotonic µs, the
 * clock profile timestamps use), largest first; idle time left out of the percentages.
 */
function summarizeProfile(path, windows, top = 25) {
  const prof = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  let at = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    const dt = prof.timeDeltas[i] ?? 0;
    at += dt;
    if (!windows.some(([a, b]) => at >= a && at <= b)) continue;
    if (n.callFrame.functionName === '(idle)') continue;
    total += dt;
    const f = n.callFrame;
    const where = f.url
      ? `${f.url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '')}:${f.lineNumber + 1}`
      : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, us]) => [k, fmt((100 * us) / total, 1), fmt(us / 1000)]);
}

/**
 * A phase that hit its time limit shows the rate of what was mined by then, as an upper bound; a
 * stalled one shows no rate.
 */
function rate(p) {
  if (p.totalSeconds !== undefined) return fmt(p.rate);
  if (p.stalled) return `stalled (${p.ok} mined)`;
  return `≤ ${fmt(p.ok / opt['tx-phase-seconds'])} (timed out)`;
}
const sendRate = (p) => (p.sent < COUNT ? `≤ ${fmt(p.sendRate)} (timed out)` : fmt(p.sendRate));

/**
 * The run whose mined rate is the median of `list` (the lower middle for an even count; a stalled or
 * timed-out run counts as the slowest).
 */
function medianRun(list) {
  const speed = (r) => (Number.isNaN(r.rate) ? -1 : r.rate);
  const sorted = [...list].sort((x, y) => speed(x) - speed(y));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

function row(name, r) {
  return [
    name,
    sendRate(r.eth),
    rate(r.eth),
    `${r.eth.ok}/${COUNT} in ${r.eth.blocks}`,
    sendRate(r.erc20),
    rate(r.erc20),
    `${r.erc20.ok}/${COUNT} in ${r.erc20.blocks}`,
  ];
}

async function main() {
  if (!existsSync(join(ROOT, 'dist/cli/main.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-tx-'));
  /** Every run's result per node, in run order. */
  const runs = {};
  const mem = {};
  let profile;
  const record = (name, result) => {
    runs[name] ??= [];
    runs[name].push(result);
  };
  try {
    // Rounds: every node once per round, so a drift of the machine's speed touches them alike.
    for (let round = 0; round < RUNS; round++) {
      if (RUNS > 1) log(`round ${round + 1} of ${RUNS}`);
      if (NODES.has('alder')) {
        // --tx-profile=DIR keeps the profile file there; --tx-profile alone only summarises it
        // (of the first round).
        const profileDir =
          round > 0
            ? undefined
            : typeof opt['tx-profile'] === 'string'
              ? opt['tx-profile']
              : opt['tx-profile']
                ? join(work, 'profile')
                : undefined;
        if (profileDir) mkdirSync(profileDir, { recursive: true });
        log('alder: dev network, mining on');
        const alder = await startAlder(join(work, `r${round}`), profileDir);
        let a;
        try {
          a = await measure('alder', alder.url, { fundSenders: true, pid: alder.proc.pid });
          record('alder', a);
          mem.alder = memory(alder.proc.pid);
        } finally {
          await stop(alder.proc);
          if (typeof opt['tx-node-log'] === 'string' && round === 0)
            writeFileSync(opt['tx-node-log'], alder.proc.output());
        }
        if (profileDir) {
          // The main thread's profile (Node names them CPU.<date>.<pid>.<thread id>.<seq>.cpuprofile).
          const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
          const file = files.find((f) => f.split('.').at(-3) === '0') ?? files[0];
          // Kept beside the profile: the measured phases' time windows, on the profile's clock.
          if (a)
            writeFileSync(join(profileDir, 'phases.json'), JSON.stringify([a.eth.window, a.erc20.window]));
          if (file && a) profile = summarizeProfile(join(profileDir, file), [a.eth.window, a.erc20.window]);
          else log('  no CPU profile was written');
        }
      }
      if (opt['no-peers']) continue;
      const keys = [bytesToHex(FUNDER), ...senderKeys.map(bytesToHex)];
      for (const [name, starter] of [
        ['hardhat', () => startHardhatPeer(join(work, `r${round}`), { keys, chainId: CHAIN_ID })],
        [
          'anvil',
          () =>
            ANVIL_BLOCK_TIME > 0
              ? startAnvilPeer({
                  keys,
                  chainId: CHAIN_ID,
                  gasLimit: 10_000_000_000,
                  args: ['--block-time', String(ANVIL_BLOCK_TIME)],
                })
              : startAnvilPeer({ keys, chainId: CHAIN_ID }),
        ],
        ['ganache', () => startGanachePeer({ keys, chainId: CHAIN_ID })],
      ]) {
        if (!NODES.has(name)) continue;
        let peer;
        try {
          log(
            `${name}: ${name === 'anvil' && ANVIL_BLOCK_TIME > 0 ? `interval mining every ${ANVIL_BLOCK_TIME} s` : 'automine'}`,
          );
          peer = await starter();
          record(name, await measure(name, peer.url, { fundSenders: false }));
          mem[name] = memory(peer.proc.pid);
        } catch (err) {
          log(`  ${name} failed: ${err.message.split('\n')[0]}`);
        } finally {
          if (peer) await stop(peer.proc);
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // Per node and phase, the run with the median mined rate (its send rate, counts and CPU with it).
  const results = {};
  for (const [name, list] of Object.entries(runs)) {
    results[name] = { eth: medianRun(list.map((r) => r.eth)), erc20: medianRun(list.map((r) => r.erc20)) };
  }

  const out = [];
  out.push('## Transaction throughput');
  out.push('');
  out.push(
    `${COUNT} signed ETH transfers, then ${COUNT} ERC-20 transfers (the bench token), from ${SENDERS} senders, ` +
      `sent with eth_sendRawTransaction over ${CONCURRENCY} keep-alive connections (each sender's nonces in order); ` +
      'signed before the clock starts. "send" = transactions accepted per second while sending; "mined" = transactions ' +
      'per second from the first send until the last one is mined (all receipts present). ' +
      "Alder: --network=dev with mining on; Hardhat's node and Ganache: automine (one block per transaction); " +
      (ANVIL_BLOCK_TIME > 0
        ? `anvil: interval mining every ${ANVIL_BLOCK_TIME} s with a gas limit that never binds (its automine stops mining under this load, see the suite's header); `
        : 'anvil: automine; ') +
      `same machine, same run (${cpus().length} cores, shared: figures are noisy).` +
      (WARMUP > 0
        ? ` Every node first took ${WARMUP} ETH and ${WARMUP} ERC-20 transfers, unmeasured (--tx-warmup).`
        : ''),
  );
  out.push('');
  const rows = Object.entries(results).map(([n, r]) => row(n, r));
  out.push(
    table(
      [
        'node',
        'ETH send tx/s',
        'ETH mined tx/s',
        'ETH ok / blocks',
        'ERC-20 send tx/s',
        'ERC-20 mined tx/s',
        'ERC-20 ok / blocks',
      ],
      rows,
    ),
  );
  out.push('');
  if (RUNS > 1) {
    out.push(
      `Each figure is the run with the median mined rate of ${RUNS} (rounds of every node in turn); mined tx/s of every run: ` +
        Object.entries(runs)
          .map(
            ([n, list]) =>
              `${n} ETH ${list.map((r) => fmt(r.eth.rate)).join(' / ')}, ERC-20 ${list.map((r) => fmt(r.erc20.rate)).join(' / ')}`,
          )
          .join('; ') +
        '.',
    );
    out.push('');
  }
  const a = results.alder;
  if (a?.eth.mainCpuPerTx !== undefined && a.erc20.mainCpuPerTx !== undefined) {
    out.push(
      `Alder CPU per mined transaction (from the first send to the last one mined; /proc, user + system): ` +
        `ETH transfers ${fmt(a.eth.mainCpuPerTx)} µs on the main thread, ${fmt(a.eth.allCpuPerTx)} µs all threads; ` +
        `ERC-20 transfers ${fmt(a.erc20.mainCpuPerTx)} µs main, ${fmt(a.erc20.allCpuPerTx)} µs all.`,
    );
    out.push('');
  }
  const ratios = [];
  for (const peer of ['hardhat', 'anvil', 'ganache']) {
    if (!results.alder || !results[peer]) continue;
    const a = results.alder;
    const p = results[peer];
    const mined = (x) => (x.totalSeconds === undefined ? x.ok / opt['tx-phase-seconds'] : x.rate);
    const ratio = (x, y) => (x.stalled || y.stalled ? 'n/a (stalled)' : `${fmt(mined(x) / mined(y), 2)}×`);
    ratios.push([
      `Alder / ${peer}`,
      `${fmt(a.eth.sendRate / p.eth.sendRate, 2)}×`,
      ratio(a.eth, p.eth),
      `${fmt(a.erc20.sendRate / p.erc20.sendRate, 2)}×`,
      ratio(a.erc20, p.erc20),
    ]);
  }
  if (ratios.length) {
    out.push(table(['ratio', 'ETH send', 'ETH mined', 'ERC-20 send', 'ERC-20 mined'], ratios));
    out.push('');
  }
  const timedOut = Object.entries(results).filter(([, r]) =>
    [r.eth, r.erc20].some((p) => (p.totalSeconds === undefined && !p.stalled) || p.sent < COUNT),
  );
  const stalled = Object.entries(results).filter(([, r]) => r.eth.stalled || r.erc20.stalled);
  if (stalled.length) {
    out.push(
      `Stalled (no block for ${opt['tx-stall-seconds']} s while transactions were outstanding): ` +
        `${stalled.map(([n]) => n).join(', ')}; no rate is given for those phases.`,
    );
    out.push('');
  }
  if (timedOut.length) {
    out.push(
      `Timed out (a phase is bounded to ${opt['tx-phase-seconds']} s): ${timedOut.map(([n]) => n).join(', ')}; ` +
        'their rate is what was mined within the bound, so a ratio against them is a lower bound.',
    );
    out.push('');
  }
  out.push(
    `Memory after the run (RSS MiB): ${Object.entries(mem)
      .map(([n, m]) => `${n} ${fmt(m.rss)} (peak ${fmt(m.peak)})`)
      .join(', ')}.`,
  );
  out.push('');
  out.push(
    "For scale: Besu's published figure for a 4-validator private network is 520–645 ERC-20 tx/s, on far larger machines.",
  );
  if (profile) {
    out.push('');
    out.push('### Alder CPU profile (main thread, self time while the phases ran, idle left out)');
    out.push('');
    out.push(table(['function', '%', 'ms'], profile));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`tx-throughput failed: ${err.stack ?? err}\n`);
  killAll();
  process.exit(1);
});
