#!/usr/bin/env node
/**
 * `npm run bench`: block import and JSON-RPC read throughput of Alder, with Ganache, Hardhat's node and
 * Foundry's anvil measured in the same run on the same machine where they have an equivalent, and the
 * ratio.
 *
 *   node bench/run.mjs [--blocks=1000] [--gas-limit=N] [--runs=3] [--seconds=4]
 *                      [--requests=20000] [--concurrency=64] [--no-peers] [--peers=ganache,hardhat,anvil] [--fresh] [--keep]
 *                      [--json=FILE] [--only=core|import|<suite>] [--reads-only] [--alder-data=DIR]
 *                      [--workloads=NAME,NAME] [--alder-bin=PATH] [--idle-only]
 *
 * `--reads-only` skips the import figures (the generated chain is still imported once, for the reads);
 * `--alder-data=DIR` keeps that imported data directory and reuses it in later runs. `--workloads`
 * keeps the read workloads whose name contains one of the given words (e.g. `eth_call,getLogs`).
 * `--alder-bin` runs another build of the CLI (another checkout's `bin/alder`, built) in place of this one.
 * `--idle-only` measures only idle memory (median of `--runs` starts): Alder on the imported generated
 * chain, started as for the read workloads, and Alder's dev network, each once it answers and 2 s
 * more; no import figures, no reads, no peers.
 * Every server binds 127.0.0.1 on a free port and runs as a child process; the load generator
 * (bench/load.mjs) is a separate process too. Everything started here is stopped by PID.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { bigIntToBytes, bytesToHex, concatBytes, setLengthLeft } from '@ethereumjs/util';
import {
  accountKey,
  addressOf,
  benchGenesis,
  CHAIN_ID,
  DEFAULT_ACCOUNTS,
  DEFAULT_GAS_LIMIT,
  SELECTORS,
  TOKEN_ADDRESS,
  TRANSFER_TOPIC,
  tokenInitCode,
} from './genchain.mjs';
import {
  BIN,
  chainStats,
  cpuSeconds,
  elapsedSeconds,
  fmt,
  freePort,
  hex,
  killAll,
  log,
  median,
  memory,
  parseOptions,
  ROOT,
  rpc,
  run,
  start,
  startAnvilPeer,
  startGanachePeer,
  startHardhatPeer,
  stop,
  table,
  waitForRpc,
} from './lib.mjs';

const RPC_COMPAT = resolve(ROOT, '../shared/conformance/rpc-compat');

const opt = parseOptions({
  blocks: 1000,
  'gas-limit': Number(DEFAULT_GAS_LIMIT),
  runs: 3,
  seconds: 4,
  requests: 20_000,
  concurrency: 64,
});

// ---------------------------------------------------------------------------------------------------
// Block import through the CLI

// Benchmarked nodes run alone: no P2P listener (two would contend for port 30303).
const alderBin = () => (typeof opt['alder-bin'] === 'string' ? resolve(opt['alder-bin']) : BIN);
const alderArgs = (genesis, dataDir) => [
  alderBin(),
  `--genesis-file=${genesis}`,
  `--data-path=${dataDir}`,
  '--p2p-enabled=false',
];

/**
 * Three figures per chain, medians of `runs` imports into fresh data directories:
 * - in-process: from the node's own per-block debug log (`--logging=DEBUG`), the time between the
 *   first and the last imported block, over the gas of blocks 2..N (no start-up, no first block);
 * - CLI: wall time of `alder blocks import` less that of importing an empty file (process start-up,
 *   genesis; the KZG set-up loads only when a block needs it);
 * - CPU: the import process's CPU time (user + system, all its threads), read from /proc until it
 *   exits (to within the 0.2 s between readings), less the empty import's.
 * The data directory of the last full import is kept for the RPC benchmark when `keepDir` is given.
 */
async function measureImport(name, genesis, chainFile, runs, work, keepDir) {
  const stats = chainStats(chainFile);
  const importArgs = (dir, file) => [
    ...alderArgs(genesis, dir),
    '--logging=DEBUG',
    'blocks',
    'import',
    `--from=${file}`,
    '--skip-pow-validation-enabled',
  ];
  const empty = join(work, 'empty.rlp');
  writeFileSync(empty, new Uint8Array());
  const startup = [];
  const startupCpu = [];
  for (let i = 0; i < opt.runs; i++) {
    const dir = join(work, `${name}-empty-${i}`);
    const r = await runWithCpu(process.execPath, importArgs(dir, empty));
    startup.push(r.seconds);
    startupCpu.push(r.cpu);
    rmSync(dir, { recursive: true, force: true });
  }
  const wall = [];
  const cpu = [];
  const inProcess = [];
  let output = '';
  for (let i = 0; i < runs; i++) {
    const dir = keepDir && i === runs - 1 ? keepDir : join(work, `${name}-full-${i}`);
    const r = await runWithCpu(process.execPath, importArgs(dir, chainFile));
    wall.push(r.seconds);
    cpu.push(r.cpu);
    output = r.output;
    if (dir !== keepDir) rmSync(dir, { recursive: true, force: true });
    const times = [];
    for (const line of r.output.split('\n')) {
      if (!line.includes('"Imported block"')) continue;
      try {
        const entry = JSON.parse(line);
        if (entry.result === 'imported') times.push({ time: entry.time, number: Number(entry.number) });
      } catch {}
    }
    if (times.length >= 2) {
      const gas = times.slice(1).reduce((sum, t) => sum + (stats.gasByNumber.get(t.number) ?? 0), 0);
      const seconds = (times[times.length - 1].time - times[0].time) / 1000;
      inProcess.push({ seconds, gas, blocks: times.length - 1, mgasPerSecond: gas / 1e6 / seconds });
    }
    log(`  ${name} import run ${i + 1}/${runs}: ${r.seconds.toFixed(2)} s wall, ${r.cpu.toFixed(2)} s CPU`);
  }
  const byRate = [...inProcess].sort((a, b) => a.mgasPerSecond - b.mgasPerSecond);
  return {
    name,
    blocks: stats.blocks,
    txs: stats.txs,
    gas: stats.gas,
    runs,
    startup: median(startup),
    wall: median(wall),
    cliSeconds: Math.max(1e-3, median(wall) - median(startup)),
    cpu: median(cpu),
    cpuSeconds: Math.max(1e-3, median(cpu) - median(startupCpu)),
    inProcess: inProcess.length === runs ? byRate[Math.floor((runs - 1) / 2)] : undefined,
    output,
  };
}

/** `run`, also reading the process's CPU time (all threads) from /proc until it exits. */
async function runWithCpu(cmd, args) {
  const t0 = performance.now();
  const p = start(cmd, args);
  let cpu = 0;
  const read = () => {
    try {
      cpu = cpuSeconds(p.pid);
    } catch {}
  };
  const poll = setInterval(read, 200);
  const timer = setTimeout(() => process.kill(p.pid, 'SIGKILL'), 900_000);
  const { code, signal } = await p.exited;
  clearInterval(poll);
  clearTimeout(timer);
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0)
    throw new Error(`${[cmd, ...args].join(' ')} exited with ${code ?? signal}:\n${p.output().slice(-4000)}`);
  return { seconds, cpu, output: p.output() };
}

// ---------------------------------------------------------------------------------------------------
// Generated chain (cached by generator source and parameters: generation costs minutes)

async function generatedChain() {
  const source = readFileSync(join(import.meta.dirname, 'genchain.mjs'));
  const params = { blocks: opt.blocks, gasLimit: opt['gas-limit'] };
  const key = createHash('sha256').update(source).update(JSON.stringify(params)).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'alder-bench-cache', key);
  const metaPath = join(dir, 'meta.json');
  if (!opt.fresh && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    log(`generated chain: cached in ${dir} (generated in ${meta.seconds} s)`);
    return { ...meta, cached: true };
  }
  // Chains from other generator versions or parameters are not reused: drop them.
  rmSync(join(tmpdir(), 'alder-bench-cache'), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`generating ${opt.blocks} blocks, gas limit ${opt['gas-limit']} → ${dir}`);
  const r = await run(process.execPath, [
    // A larger young generation: block building allocates heavily and briefly (~10% faster).
    '--max-semi-space-size=32',
    join(import.meta.dirname, 'genchain.mjs'),
    `--blocks=${opt.blocks}`,
    `--gas-limit=${opt['gas-limit']}`,
    `--out=${dir}`,
  ]);
  const meta = JSON.parse(r.output.slice(r.output.indexOf('{\n')));
  writeFileSync(metaPath, JSON.stringify(meta, null, 2));
  return { ...meta, cached: false };
}

// ---------------------------------------------------------------------------------------------------
// RPC read workloads

const body = (id, method, params) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** Request bodies per workload for a chain whose blocks `blocks` carry transactions and token logs. */
function workloads({ blocks, accounts, token }) {
  const cycle = (n, f) => Array.from({ length: n }, (_, i) => f(i));
  return [
    { name: 'eth_blockNumber', bodies: [body(1, 'eth_blockNumber', [])] },
    {
      name: 'eth_getBalance',
      bodies: cycle(accounts.length, (i) => body(i, 'eth_getBalance', [accounts[i], 'latest'])),
    },
    {
      name: 'eth_getBlockByNumber (full)',
      bodies: cycle(blocks.length, (i) => body(i, 'eth_getBlockByNumber', [hex(blocks[i]), true])),
      perBlock: true,
    },
    {
      name: 'eth_getLogs (1 block, address+topic)',
      bodies: cycle(blocks.length, (i) =>
        body(i, 'eth_getLogs', [
          { fromBlock: hex(blocks[i]), toBlock: hex(blocks[i]), address: token, topics: [TRANSFER_TOPIC] },
        ]),
      ),
      perBlock: true,
    },
    {
      // A view function: the token's balanceOf (one SLOAD), for each account in turn.
      name: 'eth_call (view balanceOf)',
      bodies: cycle(accounts.length, (i) =>
        body(i, 'eth_call', [
          {
            to: token,
            data: bytesToHex(
              concatBytes(SELECTORS.balanceOf, setLengthLeft(Buffer.from(accounts[i].slice(2), 'hex'), 32)),
            ),
          },
          'latest',
        ]),
      ),
    },
  ];
}

/** The workloads `--workloads` names (all when not given). */
function selected(wls) {
  if (typeof opt.workloads !== 'string') return wls;
  const words = opt.workloads.split(',').filter((w) => w !== '');
  return wls.filter((w) => words.some((word) => w.name.includes(word)));
}

/** One bounded load run; `cpuUs` is the server's CPU time per answered request, in microseconds. */
async function load(url, bodies, { requests, seconds }, work, pid) {
  const spec = join(work, `load-${process.hrtime.bigint()}.json`);
  writeFileSync(spec, JSON.stringify({ url, bodies, concurrency: opt.concurrency, requests, seconds }));
  const cpu0 = cpuSeconds(pid);
  const r = await run(process.execPath, [join(import.meta.dirname, 'load.mjs'), spec], {
    timeoutSeconds: seconds + 60,
  });
  const cpu = cpuSeconds(pid) - cpu0;
  rmSync(spec);
  const result = JSON.parse(r.output.trim().split('\n').pop());
  return { ...result, cpuUs: result.count > 0 ? (cpu * 1e6) / result.count : Number.NaN };
}

/** Warm-up, then `runs` bounded runs of each workload; the run with the median rate is reported. */
async function measureReads(target, url, wls, work, pid) {
  const results = {};
  for (const w of wls) {
    await load(url, w.bodies, { requests: 2000, seconds: 1 }, work, pid);
    const rs = [];
    for (let i = 0; i < opt.runs; i++)
      rs.push(await load(url, w.bodies, { requests: opt.requests, seconds: opt.seconds }, work, pid));
    const byRate = [...rs].sort((a, b) => a.rps - b.rps);
    const mid = byRate[Math.floor((byRate.length - 1) / 2)];
    const errors = rs.reduce((s, r) => s + r.errors, 0);
    results[w.name] = {
      ...mid,
      rps: median(rs.map((r) => r.rps)),
      cpuUs: median(rs.map((r) => r.cpuUs)),
      errors,
      firstError: rs.find((r) => r.firstError)?.firstError,
    };
    log(
      `  ${target} ${w.name}: ${fmt(results[w.name].rps)} req/s, ${fmt(results[w.name].cpuUs, 1)} µs CPU/req, p50 ${fmt(mid.p50, 2)} ms, p99 ${fmt(mid.p99, 2)} ms, ${fmt(mid.meanBytes)} B${errors ? `, ${errors} errors (${results[w.name].firstError})` : ''}`,
    );
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------
// Peers: a few blocks of the same transaction mix, sent with eth_sendTransaction and mined together

const KIND_NAMES = {
  eth: 'ETH transfers',
  token: 'token transfers',
  fill: 'storage-heavy calls (16 SSTOREs)',
};
const PEER_ACCOUNTS = 32;
const PEER_BLOCKS = 6;

async function fillPeer(url, { automineOff, txsPerBlock }) {
  const accounts = (await rpc(url, 'eth_accounts')).slice(0, PEER_ACCOUNTS);
  await rpc(url, ...automineOff);
  const send = (tx) => rpc(url, 'eth_sendTransaction', [tx]);
  const mine = async () => {
    await rpc(url, 'evm_mine');
    return rpc(url, 'eth_getBlockByNumber', ['latest', false]);
  };
  await send({ from: accounts[0], data: bytesToHex(tokenInitCode()), gas: hex(1_000_000) });
  const deployBlock = await mine();
  const receipt = await rpc(url, 'eth_getTransactionReceipt', [deployBlock.transactions[0]]);
  const token = receipt.contractAddress;
  const word = (v) => setLengthLeft(typeof v === 'bigint' ? bigIntToBytes(v) : v, 32);
  const transfer = (to, amount) =>
    bytesToHex(concatBytes(SELECTORS.transfer, word(Buffer.from(to.slice(2), 'hex')), word(amount)));
  for (const a of accounts.slice(1))
    await send({ from: accounts[0], to: token, data: transfer(a, 10n ** 24n), gas: hex(100_000) });
  await mine();

  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  let fill = 0n;
  let fillCalls = 0;
  const blocks = [];
  for (let b = 0; b < PEER_BLOCKS; b++) {
    for (let i = 0; i < txsPerBlock; i++) {
      const from = pick(accounts);
      const r = random();
      if (r < 0.45) await send({ from, to: pick(accounts), value: hex(10n ** 12n), gas: hex(21_000) });
      else if (r < 0.8)
        await send({
          from,
          to: token,
          data: transfer(pick(accounts), BigInt(1 + Math.floor(random() * 1000))),
          gas: hex(80_000),
        });
      else {
        // As in the generated chain: alternately fresh slots and slots written before.
        let start = fill;
        if (fillCalls++ % 2 === 1 && fill > 0n)
          start = BigInt(Math.floor(random() * Number(fill / 16n))) * 16n;
        else fill += 16n;
        await send({
          from,
          to: token,
          data: bytesToHex(concatBytes(SELECTORS.fill, word(start), word(16n))),
          gas: hex(500_000),
        });
      }
    }
    const block = await mine();
    blocks.push(Number(block.number));
  }
  const mined = await rpc(url, 'eth_getBlockByNumber', [hex(blocks[0]), false]);
  const logs = await rpc(url, 'eth_getLogs', [
    { fromBlock: hex(blocks[0]), toBlock: hex(blocks[0]), address: token },
  ]);
  return { accounts, token, blocks, txsInFirst: mined.transactions.length, logsInFirst: logs.length };
}

function peerKeys() {
  return Array.from({ length: PEER_ACCOUNTS }, (_, i) => bytesToHex(accountKey(i)));
}

const startGanache = () => startGanachePeer({ keys: peerKeys(), chainId: CHAIN_ID });
const startHardhat = (work) => startHardhatPeer(work, { keys: peerKeys(), chainId: CHAIN_ID });
const startAnvil = () => startAnvilPeer({ keys: peerKeys(), chainId: CHAIN_ID });

// ---------------------------------------------------------------------------------------------------
// Main

/** The RPC node on the generated chain, as the read workloads start it. */
const rpcNodeArgs = (genesis, dataDir, port, enginePort) => [
  ...alderArgs(genesis, dataDir),
  `--engine-rpc-port=${enginePort}`,
  '--rpc-http-enabled',
  '--rpc-http-host=127.0.0.1',
  `--rpc-http-port=${port}`,
  '--rpc-http-api=ETH,NET,WEB3,DEBUG',
];

/** Memory of a node started with `args` once it answers and has been idle for 2 s. */
async function idleMemory(args, port) {
  const proc = start(process.execPath, args);
  try {
    await waitForRpc(`http://127.0.0.1:${port}`, proc);
    await new Promise((r) => setTimeout(r, 2000));
    return { ...memory(proc.pid), cpu: cpuSeconds(proc.pid) };
  } finally {
    await stop(proc);
  }
}

/** `--idle-only`: idle RSS of Alder on the imported generated chain and on its dev network. */
async function idleOnly(work, gen, dataDir) {
  const rows = [];
  for (const [name, args] of [
    ['generated chain', async (port) => rpcNodeArgs(gen.genesisPath, dataDir, port, await freePort())],
    [
      'dev network',
      async (port, i) => [
        alderBin(),
        '--network=dev',
        `--data-path=${join(work, `dev-${i}`)}`,
        '--p2p-enabled=false',
        '--rpc-http-enabled',
        '--rpc-http-host=127.0.0.1',
        `--rpc-http-port=${port}`,
      ],
    ],
  ]) {
    const ms = [];
    for (let i = 0; i < opt.runs; i++) {
      const port = await freePort();
      ms.push(await idleMemory(await args(port, i), port));
    }
    const m = (k) => fmt(median(ms.map((x) => x[k])), 1);
    log(`  idle ${name}: RSS ${m('rss')} MiB (anonymous ${m('anon')}, mapped files ${m('file')})`);
    rows.push([name, m('rss'), m('anon'), m('file'), m('cpu')]);
  }
  process.stdout.write(
    `## Idle memory (MiB, median of ${opt.runs} starts, 2 s after the node answers)\n\n` +
      `${table(['alder on', 'RSS', 'anonymous', 'mapped files', 'CPU s used by then'], rows)}\n`,
  );
}

/** The chain and block import sections of the report. */
function reportImports(say, report, gen, stats, imports, genImport) {
  const cpu = cpus();
  say(`# Alder benchmark — ${report.started}`);
  say(
    `Node ${process.version}, ${cpu[0]?.model ?? 'cpu'} × ${cpu.length} cores, ${fmt(totalmem() / 2 ** 30, 1)} GiB. ` +
      'Servers and the load generator are separate processes sharing these cores.',
  );
  say();
  say(
    `Generated chain: ${gen.headNumber} blocks, gas limit ${fmt(Number(gen.gasLimit))}, ${fmt(stats.txs)} txs ` +
      `(${['eth', 'token', 'fill'].map((k) => `${fmt(gen.txKinds[k])} ${KIND_NAMES[k]} with ${fmt((Number(gen.gasByKind[k]) / stats.gas) * 100)}% of the gas`).join(', ')}), ` +
      `${fmt((stats.gas / stats.blocks / Number(gen.gasLimit)) * 100, 1)}% of the gas limit used on average; ` +
      `built with @ethereumjs/vm buildBlock in ${fmt(gen.seconds, 1)} s${gen.cached ? ' (earlier run, reused from cache)' : ''}.`,
  );
  say();
  if (imports.length === 0) return;
  say('## Block import (`alder blocks import --skip-pow-validation-enabled` into a fresh data directory)');
  say();
  say(
    table(
      [
        'chain',
        'blocks',
        'txs',
        'Mgas',
        'Mgas/s',
        'blocks/s',
        'CLI s',
        'start-up s',
        'CLI Mgas/s',
        'CPU s',
        'CPU Mgas/s',
        'runs',
      ],
      imports.map((r) => [
        r.name,
        fmt(r.blocks),
        fmt(r.txs),
        fmt(r.gas / 1e6, 1),
        r.inProcess ? fmt(r.inProcess.mgasPerSecond, 1) : '-',
        r.inProcess ? fmt(r.inProcess.blocks / r.inProcess.seconds, 1) : '-',
        fmt(r.wall, 2),
        fmt(r.startup, 2),
        fmt(r.gas / 1e6 / r.cliSeconds, 1),
        fmt(r.cpu, 2),
        fmt(r.gas / 1e6 / r.cpuSeconds, 1),
        r.runs === 1 ? '1' : `median of ${r.runs}`,
      ]),
    ),
  );
  say();
  say(
    "Mgas/s and blocks/s: in-process, from the node's per-block debug log (first to last imported block, gas of blocks 2..N). " +
      "CLI Mgas/s: the command's wall time less an empty import's (start-up, genesis). " +
      "CPU s: the command's CPU time (user + system, every thread); CPU Mgas/s over it less an empty import's.",
  );
  say(
    `No npm peer imports RLP blocks: Alder only. Generated head hash ${genImport?.headOk ? 'matches' : 'DOES NOT MATCH'} the generator's.`,
  );
  say();
}

/** Prints the report and writes it as JSON when asked. */
function finish(report, out) {
  process.stdout.write(`${out.join('\n')}\n`);
  if (typeof opt.json === 'string')
    writeFileSync(
      opt.json,
      JSON.stringify(report, (_, v) => (typeof v === 'bigint' ? v.toString() : v), 2),
    );
}

/** The core workloads; `importOnly` stops after block import (no RPC reads, no peers). */
async function core({ importOnly = false } = {}) {
  if (!existsSync(join(ROOT, 'dist/cli/main.js')))
    throw new Error('dist/ is missing: run `npm run build` first (npm run bench does)');
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-'));
  const report = { started: new Date().toISOString(), options: opt };
  const out = [];
  const say = (s = '') => out.push(s);
  try {
    // 1. Chains
    const fixture = join(ROOT, 'test/fixtures/bench-genesis.json');
    if (
      !existsSync(fixture) ||
      readFileSync(fixture, 'utf8') !== `${JSON.stringify(benchGenesis(), null, 2)}\n`
    ) {
      log(
        'warning: test/fixtures/bench-genesis.json differs from the generator; run `node bench/genchain.mjs --genesis-only`',
      );
    }
    const gen = await generatedChain();
    report.generated = gen;

    // 2. Block import
    const imports = [];
    const onlyIdle = opt['idle-only'] === true;
    const readsOnly = onlyIdle || opt['reads-only'] === true;
    if (!readsOnly && existsSync(join(RPC_COMPAT, 'chain.rlp'))) {
      log('import: rpc-compat chain');
      imports.push(
        await measureImport(
          'rpc-compat',
          join(RPC_COMPAT, 'genesis.json'),
          join(RPC_COMPAT, 'chain.rlp'),
          opt.runs,
          work,
        ),
      );
    }
    const alderData =
      typeof opt['alder-data'] === 'string' ? resolve(opt['alder-data']) : join(work, 'alder-generated');
    const reuse = typeof opt['alder-data'] === 'string' && existsSync(join(alderData, 'imported-head'));
    let genImport;
    if (reuse) log(`import: reusing ${alderData}`);
    else {
      log('import: generated chain');
      rmSync(alderData, { recursive: true, force: true });
      genImport = await measureImport('generated', gen.genesisPath, gen.chainPath, 1, work, alderData);
      const headLine = /head is block (\d+) (0x[0-9a-f]{64})/.exec(genImport.output);
      genImport.headOk = headLine !== null && headLine[2] === gen.headHash;
      if (genImport.headOk) writeFileSync(join(alderData, 'imported-head'), `${gen.headHash}\n`);
      if (!readsOnly) imports.push(genImport);
    }
    report.imports = imports;
    if (onlyIdle) return await idleOnly(work, gen, alderData);
    if (importOnly) {
      reportImports(say, report, gen, chainStats(gen.chainPath), imports, genImport);
      say(`Total bench time ${fmt(elapsedSeconds())} s.`);
      finish(report, out);
      return;
    }

    // 3. RPC reads: Alder on the imported generated chain
    const stats = chainStats(gen.chainPath);
    const txsPerBlock = Math.round(stats.txs / stats.blocks);
    const reads = {};
    const mem = {};
    {
      const port = await freePort();
      // The generated chain is post-merge: the engine port opens too, on a free port of its own.
      const enginePort = await freePort();
      const proc = start(process.execPath, rpcNodeArgs(gen.genesisPath, alderData, port, enginePort));
      const url = `http://127.0.0.1:${port}`;
      log('rpc: alder');
      await waitForRpc(url, proc);
      await new Promise((r) => setTimeout(r, 2000));
      const idle = memory(proc.pid);
      const accounts = Array.from({ length: Math.min(256, DEFAULT_ACCOUNTS) }, (_, i) =>
        addressOf(accountKey(i)).toString(),
      );
      // Same access pattern as the peers (a handful of recent blocks), then the whole chain.
      const all = Array.from({ length: stats.blocks }, (_, i) => i + 1);
      const recent = all.slice(-PEER_BLOCKS);
      const wls = [
        ...workloads({ blocks: recent, accounts, token: TOKEN_ADDRESS }),
        ...workloads({ blocks: all, accounts, token: TOKEN_ADDRESS })
          .filter((w) => w.perBlock)
          .map((w) => ({ ...w, name: w.name.replace(/\)$/, `, all ${stats.blocks} blocks)`) })),
      ];
      reads.alder = await measureReads('alder', url, selected(wls), work, proc.pid);
      const loaded = memory(proc.pid);
      mem.alder = {
        idle: idle.rss,
        loaded: loaded.rss,
        peak: loaded.peak,
        anon: loaded.anon,
        file: loaded.file,
      };
      await stop(proc);
    }

    // 4. Peers
    const peers = [];
    if (!opt['no-peers']) {
      for (const [name, starter] of [
        ['ganache', startGanache],
        ['hardhat', startHardhat],
        ['anvil', startAnvil],
      ]) {
        if (typeof opt.peers === 'string' && !opt.peers.split(',').includes(name)) continue;
        let peer;
        try {
          log(`rpc: ${name} (start and fill ${PEER_BLOCKS} blocks of ${txsPerBlock} txs)`);
          peer = await starter(work);
          const chain = await fillPeer(peer.url, { automineOff: peer.automineOff, txsPerBlock });
          await new Promise((r) => setTimeout(r, 1000));
          const idle = memory(peer.proc.pid);
          reads[name] = await measureReads(name, peer.url, selected(workloads(chain)), work, peer.proc.pid);
          const loaded = memory(peer.proc.pid);
          mem[name] = {
            idle: idle.rss,
            loaded: loaded.rss,
            peak: loaded.peak,
            anon: loaded.anon,
            file: loaded.file,
          };
          peers.push({ name, txsPerBlock: chain.txsInFirst, logsPerBlock: chain.logsInFirst });
        } catch (err) {
          log(`  ${name} failed: ${err.message.split('\n')[0]}`);
          peers.push({ name, error: err.message.split('\n')[0] });
        } finally {
          if (peer) await stop(peer.proc);
        }
      }
    }
    report.reads = reads;
    report.memory = mem;
    report.peers = peers;

    // 5. Report
    reportImports(say, report, gen, stats, imports, genImport);
    say(
      `## RPC reads (HTTP keep-alive, ${opt.concurrency} connections, ≤${fmt(opt.requests)} requests or ${opt.seconds} s per run, ` +
        `median of ${opt.runs} runs after a warm-up)`,
    );
    say();
    const peerNames = peers.filter((p) => !p.error).map((p) => p.name);
    const headers = ['workload', 'alder req/s', 'p50 ms', 'p99 ms', 'CPU µs/req'];
    for (const p of peerNames)
      headers.push(`${p} req/s`, `${p} p50/p99 ms`, `${p} CPU µs/req`, `alder/${p} req/s`, `${p}/alder CPU`);
    const rows = Object.keys(reads.alder).map((w) => {
      const a = reads.alder[w];
      const row = [w, fmt(a.rps), fmt(a.p50, 2), fmt(a.p99, 2), fmt(a.cpuUs, 1)];
      for (const p of peerNames) {
        const r = reads[p][w];
        if (r)
          row.push(
            fmt(r.rps),
            `${fmt(r.p50, 2)}/${fmt(r.p99, 2)}`,
            fmt(r.cpuUs, 1),
            `${fmt(a.rps / r.rps, 2)}×`,
            `${fmt(r.cpuUs / a.cpuUs, 2)}×`,
          );
        else row.push('', '', '', '', '');
      }
      return row;
    });
    say(table(headers, rows));
    say();
    say(
      'CPU µs/req: CPU time (user + system, from /proc) the server process used during the runs, per answered ' +
        'request — a figure that does not depend on how fast the load generator, which shares the cores, can go. ' +
        '`peer/alder CPU` above 1 means Alder does the same work with less CPU.',
    );
    say();
    say(
      `Mean response bytes: ${Object.keys(reads.alder)
        .map(
          (w) =>
            `${w.split(' (')[0]}${/all \d+ blocks/.test(w) ? ' (all blocks)' : ''} ${['alder', ...peerNames]
              .filter((t) => reads[t][w])
              .map((t) => `${t} ${fmt(reads[t][w].meanBytes)}`)
              .join(' / ')}`,
        )
        .join('; ')}.`,
    );
    say(
      `Alder serves the imported generated chain (~${txsPerBlock} txs per block): blocks ${stats.blocks - PEER_BLOCKS + 1}–${stats.blocks} ` +
        `cycled, as the peers are measured, and blocks 1–${stats.blocks} cycled in the rows that say so; ` +
        `each peer serves ${PEER_BLOCKS} blocks of ~${txsPerBlock} txs of the same mix sent to it by eth_sendTransaction` +
        `${peers.length ? ` (${peers.map((p) => (p.error ? `${p.name}: failed — ${p.error}` : `${p.name}: ${p.txsPerBlock} txs and ${p.logsPerBlock} logs in the first`)).join('; ')})` : ''}.`,
    );
    const errs = Object.entries(reads).flatMap(([t, ws]) =>
      Object.entries(ws)
        .filter(([, r]) => r.errors)
        .map(([w, r]) => `${t} ${w}: ${r.errors} errors (${r.firstError})`),
    );
    if (errs.length) say(`Errors: ${errs.join('; ')}`);
    say();
    say('## Memory (RSS, MiB)');
    say();
    say(
      table(
        [
          'server',
          'idle',
          'after load',
          'peak',
          'after load: heap and other anonymous',
          'after load: mapped files',
        ],
        Object.entries(mem).map(([t, m]) => [
          t,
          fmt(m.idle),
          fmt(m.loaded),
          fmt(m.peak),
          fmt(m.anon),
          fmt(m.file),
        ]),
      ),
    );
    say();
    say(
      "Alder's mapped files are mostly its LMDB database, read through a memory map: pages of the data file " +
        'it has read count in its RSS but belong to the page cache and are given back under memory pressure.',
    );
    say();
    say(`Total bench time ${fmt(elapsedSeconds())} s.`);
    finish(report, out);
  } finally {
    if (!opt.keep) rmSync(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
}

/**
 * The core workloads above, then every suite in bench/suites/ (each a script printing its own Markdown
 * section), run one after the other so that no two measurements share the cores. `--only=core` or
 * `--only=<suite file name without .mjs>` runs just that one; `--only=import` only the core's block
 * import (both chains, no RPC reads, no peers).
 */
async function main() {
  const only = typeof opt.only === 'string' ? opt.only : undefined;
  if (!only || only === 'core') await core();
  if (only === 'import') await core({ importOnly: true });
  const dir = join(import.meta.dirname, 'suites');
  const suites = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.mjs'))
        .sort()
    : [];
  for (const file of suites) {
    const name = file.replace(/\.mjs$/, '');
    if (only && only !== name) continue;
    log(`suite: ${name}`);
    const args = process.argv.slice(2).filter((a) => !a.startsWith('--only'));
    const p = start(process.execPath, [join(dir, file), ...args], { inheritStderr: true });
    const { code, signal } = await p.exited;
    process.stdout.write(`\n${p.stdout()}`);
    if (code !== 0) {
      process.stdout.write(`\nSuite ${name} failed (${code ?? signal}):\n${p.output().slice(-2000)}\n`);
      process.exitCode = 1;
    }
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
  killAll();
  process.exit(1);
});
