#!/usr/bin/env node
/**
 * The dev network's write path per transaction, in one process and without sockets or a nonce search:
 * N signed ETH transfers, then N ERC-20 transfers (the bench token), from many senders, each taken in
 * through the pool as eth_sendRawTransaction hands them over (`TxPool.addRaw`, --tx-concurrency at a
 * time), then built into blocks of at most --tx-block transactions by the node's block builder and
 * stored with `BlockImporter.commitBuilt` (the seal is left out: the dev network's proof of work is
 * luck, not work this path does). Prints, per phase and step (intake, build, commit), the CPU time per
 * transaction of the main thread and of the whole process (user + system), so that figures taken on a
 * busy machine still compare; the blocks' hashes are printed too (same inputs, same hashes).
 *
 *   node bench/suites/tx-pipeline.mjs [--tx-count=10000] [--tx-senders=100] [--tx-block=2500]
 *        [--tx-concurrency=32] [--runs=3] [--threads] [--windows=FILE]
 *
 * --threads also prints each step's CPU per thread (by thread: the main thread, the others by name
 * and id offset from the process id: V8's helper threads start first, then the sender-recovery and commit
 * threads). --windows=FILE writes the measured steps' time spans ({intake, build, commit}: lists of
 * [from, to] in monotonic µs, the clock of `node --cpu-prof` profiles) to FILE, to read a profile by step.
 *
 * Every run starts from a fresh data directory; the median of --runs is printed (progress on stderr).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { signDevTx } from '../devSigning.mjs';
import { accountKey, addressOf, keccak256, SELECTORS, tokenInitCode } from '../genchain.mjs';
import { fmt, log, median, parseOptions, ROOT, table } from '../lib.mjs';

const opt = parseOptions({
  'tx-count': 10_000,
  'tx-senders': 100,
  'tx-block': 2500,
  'tx-concurrency': 32,
  runs: 3,
});
const COUNT = opt['tx-count'];
const SENDERS = Math.min(opt['tx-senders'], COUNT);
const PER_BLOCK = opt['tx-block'];
const CONCURRENCY = opt['tx-concurrency'];

const dist = (p) => import(join(ROOT, 'dist', p));
const { loadConfig } = await dist('config/load.js');
const { createBackend } = await dist('node.js');
const { BlockBuilder } = await dist('mining/builder.js');
const { setLogLevel } = await dist('log.js');
setLogLevel('ERROR');

/** A prefunded dev-network key (public test key). */
const FUNDER = hexToBytes('0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3');
const COINBASE = '0x00000000000000000000000000000000000c0ffe';

function sign(key, fields) {
  const tx = signDevTx(key, fields);
  return tx.serialize();
}
const word = (v) => setLengthLeft(typeof v === 'bigint' ? bigIntToBytes(v) : v, 32);
const transferData = (to, amount) => concatBytes(SELECTORS.transfer, word(hexToBytes(to)), word(amount));
const senderKeys = Array.from({ length: SENDERS }, (_, i) => accountKey(10_000 + i));
const senders = senderKeys.map((k) => addressOf(k).toString());
const recipient = (kind, i) => bytesToHex(keccak256(new TextEncoder().encode(`${kind}-${i}`)).subarray(12));

/** Transactions dealt round-robin over the senders, in sending order. */
function signBatch(firstNonce, make) {
  const next = senders.map(() => firstNonce);
  const out = [];
  for (let i = 0; i < COUNT; i++) {
    const s = i % SENDERS;
    out.push(sign(senderKeys[s], { nonce: next[s]++, ...make(i) }));
  }
  return out;
}

/** CPU microseconds (user + system) of the main thread (/proc) and of the whole process. */
const TICK_US = 10_000;
function cpu() {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const all = process.cpuUsage();
  return { main: (Number(f[11]) + Number(f[12])) * TICK_US, all: all.user + all.system };
}
/** CPU microseconds per thread name (/proc/self/task/<tid>/comm), for --threads. */
function threadCpu() {
  const out = new Map();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name =
        tid === String(process.pid)
          ? 'main'
          : `${readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()} +${Number(tid) - process.pid}`;
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * TICK_US);
    } catch {
      // the thread ended
    }
  }
  return out;
}
const threadTotals = new Map();
/** Each measured step's time span on the clock CPU profiles use (monotonic µs), for --windows. */
const windows = { intake: [], build: [], commit: [] };
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
function addThreads(step, before) {
  const after = threadCpu();
  for (const [name, us] of after) {
    const key = `${step} ${name}`;
    threadTotals.set(key, (threadTotals.get(key) ?? 0) + us - (before.get(name) ?? 0));
  }
}
const since = (a) => {
  const b = cpu();
  return { main: b.main - a.main, all: b.all - a.all };
};

async function intake(pool, raws) {
  let i = 0;
  let errors = 0;
  let firstError;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (i < raws.length) {
        const raw = raws[i++];
        await pool.addRaw(raw).catch((err) => {
          errors++;
          firstError ??= err.message;
        });
      }
    }),
  );
  if (errors) throw new Error(`${errors} transactions refused: ${firstError}`);
}

/** Builds and stores blocks until the pool is empty; returns the CPU of each step and the hashes. */
async function mine(backend, builder, sealer) {
  const { chain, importer } = backend.chain;
  const pool = backend.services.txPool;
  const build = { main: 0, all: 0 };
  const commit = { main: 0, all: 0 };
  const hashes = [];
  let txs = 0;
  while (pool.size > 0) {
    const parent = chain.headHeader();
    let t = threadCpu();
    let c = cpu();
    let w0 = monotonicUs();
    const built = await builder.build(parent, sealer, parent.timestamp + 1n);
    windows.build.push([w0, monotonicUs()]);
    const b = since(c);
    addThreads('build', t);
    t = threadCpu();
    c = cpu();
    w0 = monotonicUs();
    if ((await importer.commitBuilt(built.block, built.execution)) !== 'imported')
      throw new Error('not stored');
    await pool.settled();
    windows.commit.push([w0, monotonicUs()]);
    const m = since(c);
    addThreads('commit', t);
    build.main += b.main;
    build.all += b.all;
    commit.main += m.main;
    commit.all += m.all;
    txs += built.txCount;
    hashes.push(bytesToHex(built.block.hash()));
    if (built.txCount === 0) throw new Error('an empty block with transactions in the pool');
  }
  return { build, commit, hashes, txs };
}

async function runOnce(eth, erc20) {
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-pipeline-'));
  const config = loadConfig(
    [
      '--network=dev',
      `--data-path=${work}`,
      '--p2p-enabled=false',
      `--miner-coinbase=${COINBASE}`,
      `--tx-pool-max-size=${COUNT + SENDERS + 100}`,
    ],
    {},
  );
  const backend = await createBackend(config, { skipPowValidation: true });
  try {
    const pool = backend.services.txPool;
    const { chain, importer, engine } = backend.chain;
    const { EthashEngine } = await dist('consensus/ethash/engine.js');
    const { createAddressFromString } = await import('@ethereumjs/util');
    // Only the header fields of the engine are used (no seal is searched).
    const sealer = new EthashEngine(engine, engine.caches, {
      coinbase: createAddressFromString(COINBASE),
      extraData: new Uint8Array(),
    });
    const builder = new BlockBuilder(chain, importer, pool, {
      minGasPrice: () => 0n,
      minPriorityFee: () => 0n,
      targetGasLimit: () => undefined,
    });
    // Set-up: senders funded, the token deployed and shared out (not measured).
    let nonce = 0n;
    const setup = async (raws) => {
      for (const raw of raws) await pool.addRaw(raw);
      await mine(backend, builder, sealer);
    };
    await setup(
      senders.map((to) => sign(FUNDER, { nonce: nonce++, gasLimit: 21_000n, to, value: 10n ** 20n })),
    );
    const deploy = signDevTx(FUNDER, { nonce, gasLimit: 1_000_000n, data: tokenInitCode() });
    nonce++;
    await setup([deploy.serialize()]);
    const token = bytesToHex(
      keccak256(
        concatBytes(
          new Uint8Array([0xd6, 0x94]),
          hexToBytes(addressOf(FUNDER).toString()),
          new Uint8Array([Number(nonce - 1n)]),
        ),
      ).subarray(12),
    );
    await setup(
      senders.map((to) =>
        sign(FUNDER, { nonce: nonce++, gasLimit: 100_000n, to: token, data: transferData(to, 10n ** 24n) }),
      ),
    );
    const out = {};
    for (const [name, raws] of [
      ['ETH transfers', eth],
      ['ERC-20 transfers', erc20(token)],
    ]) {
      // Blocks of PER_BLOCK: each block's transactions are taken in, then the block is built and stored.
      const steps = {
        intake: { main: 0, all: 0 },
        build: { main: 0, all: 0 },
        commit: { main: 0, all: 0 },
        hashes: [],
      };
      for (let at = 0; at < raws.length; at += PER_BLOCK) {
        const t = threadCpu();
        const c = cpu();
        const w0 = monotonicUs();
        await intake(pool, raws.slice(at, at + PER_BLOCK));
        windows.intake.push([w0, monotonicUs()]);
        const taken = since(c);
        addThreads('intake', t);
        steps.intake.main += taken.main;
        steps.intake.all += taken.all;
        const r = await mine(backend, builder, sealer);
        for (const k of ['build', 'commit']) {
          steps[k].main += r[k].main;
          steps[k].all += r[k].all;
        }
        steps.hashes.push(...r.hashes);
      }
      out[name] = steps;
    }
    return out;
  } finally {
    await backend.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function main() {
  log(`signing ${COUNT} ETH and ${COUNT} token transfers`);
  const perSender = BigInt(Math.ceil(COUNT / SENDERS));
  const eth = signBatch(0n, (i) => ({ gasLimit: 21_000n, to: recipient('eth', i), value: 1n }));
  let erc20Cache;
  const erc20 = (token) =>
    (erc20Cache ??= signBatch(perSender, (i) => ({
      gasLimit: 80_000n,
      to: token,
      data: transferData(recipient('erc20', i), 1n),
    })));
  const runs = [];
  for (let r = 0; r < opt.runs; r++) {
    const res = await runOnce(eth, erc20);
    runs.push(res);
    for (const [name, s] of Object.entries(res))
      log(
        `  run ${r + 1} ${name}: intake ${fmt(s.intake.main / COUNT)}/${fmt(s.intake.all / COUNT)} µs, ` +
          `build ${fmt(s.build.main / COUNT)}/${fmt(s.build.all / COUNT)} µs, commit ${fmt(s.commit.main / COUNT)}/${fmt(s.commit.all / COUNT)} µs (main/all); ` +
          `last block ${s.hashes.at(-1)}`,
      );
  }
  const rows = [];
  for (const name of Object.keys(runs[0])) {
    const m = (step, k) => median(runs.map((x) => x[name][step][k] / COUNT));
    const total = (k) =>
      median(runs.map((x) => (x[name].intake[k] + x[name].build[k] + x[name].commit[k]) / COUNT));
    rows.push([
      name,
      `${fmt(m('intake', 'main'))} / ${fmt(m('intake', 'all'))}`,
      `${fmt(m('build', 'main'))} / ${fmt(m('build', 'all'))}`,
      `${fmt(m('commit', 'main'))} / ${fmt(m('commit', 'all'))}`,
      `${fmt(total('main'))} / ${fmt(total('all'))}`,
      runs[0][name].hashes.at(-1).slice(0, 18),
    ]);
  }
  const out = [
    '## Write path CPU per transaction (in process)',
    '',
    `${COUNT} ETH transfers, then ${COUNT} ERC-20 transfers from ${SENDERS} senders: taken in through the pool ` +
      `(${CONCURRENCY} at a time), built into blocks by the block builder, stored with commitBuilt; no sockets, no seal. ` +
      `CPU µs per transaction, main thread / whole process, median of ${opt.runs} runs.`,
    '',
    table(['phase', 'intake', 'build', 'commit', 'total', 'last block'], rows),
  ];
  if (typeof opt.windows === 'string') writeFileSync(opt.windows, JSON.stringify(windows));
  if (opt.threads) {
    // Set-up blocks count too: a rough split of where each step's CPU goes, all runs together.
    out.push('', 'CPU per thread and step (µs per transaction, all runs, set-up included):', '');
    const rowsT = [...threadTotals.entries()]
      .filter(([, us]) => us > 0)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([k, us]) => [k, fmt(us / (2 * COUNT * opt.runs), 1)]);
    out.push(table(['step thread', 'µs/tx'], rowsT));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`tx-pipeline failed: ${err.stack ?? err}\n`);
    process.exit(1);
  },
);
