#!/usr/bin/env node
/**
 * Execution API throughput: eth_call of a view function (one SLOAD), eth_call of a ~1M-gas compute
 * loop, eth_estimateGas of that loop and eth_createAccessList of the view, each as requests/s with
 * p50/p99 latency and the server's CPU time per request (user + system, so that figures taken on a
 * shared machine still compare), for Alder and, in the same run, Hardhat's node, Ganache and Foundry's anvil. The peers get the contract through eth_sendTransaction;
 * Alder gets the same runtime code and storage from its genesis alloc. Prints a Markdown section
 * (progress on stderr).
 *
 *   node bench/suites/execution.mjs [--requests=N] [--seconds=S] [--runs=R] [--concurrency=C]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CANCUN_AT_GENESIS } from '../genchain.mjs';
import {
  BIN,
  cpuSeconds,
  fmt,
  freePort,
  hex,
  killAll,
  log,
  median,
  parseOptions,
  rpc,
  run,
  start,
  startAnvilPeer,
  startGanachePeer,
  startHardhatPeer,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const opt = parseOptions({ requests: 20000, seconds: 4, runs: 3, concurrency: 16 });

const CHAIN_ID = 31415;
const KEY = '0x45a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8';
const SENDER = '0xa94f5374fce5edbc8e2a8697c15331677e6ebf0b';
/**
 * Runtime: no calldata → return storage slot 0 (the view); calldata word n → count n down in a loop
 * (26 gas a turn) and return 0 (the compute call).
 */
const RUNTIME = '0x36600f5760005460005260206000f35b6000355b600190038060135760005260206000f3';
/** Init code: slot 0 = 42, then return RUNTIME. */
const INIT = `0x602a600055602460116000396024${'6000f3'}${RUNTIME.slice(2)}`;
const CONTRACT = '0x00000000000000000000000000000000000c0de0';
const LOOP_TURNS = 38_000n;
const COMPUTE_DATA = `0x${LOOP_TURNS.toString(16).padStart(64, '0')}`;

function genesis() {
  return {
    config: {
      chainId: CHAIN_ID,
      ...CANCUN_AT_GENESIS,
    },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: '0x1c9c380',
    difficulty: '0x0',
    mixHash: `0x${'0'.repeat(64)}`,
    coinbase: `0x${'0'.repeat(40)}`,
    baseFeePerGas: '0x3b9aca00',
    alloc: {
      [SENDER.slice(2)]: { balance: hex(10n ** 27n) },
      [CONTRACT.slice(2)]: {
        balance: '0x0',
        code: RUNTIME,
        storage: { [`0x${'0'.repeat(64)}`]: `0x${'2a'.padStart(64, '0')}` },
      },
    },
  };
}

function workloads(contract) {
  const body = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return [
    {
      name: 'eth_call (view, 1 SLOAD)',
      bodies: [body('eth_call', [{ to: contract, data: '0x' }, 'latest'])],
    },
    {
      name: 'eth_call (~1M gas loop)',
      bodies: [body('eth_call', [{ to: contract, data: COMPUTE_DATA, gas: '0x1e8480' }, 'latest'])],
    },
    {
      name: 'eth_estimateGas (~1M gas loop)',
      bodies: [body('eth_estimateGas', [{ from: SENDER, to: contract, data: COMPUTE_DATA }])],
    },
    {
      name: 'eth_createAccessList (view)',
      bodies: [body('eth_createAccessList', [{ from: SENDER, to: contract, data: '0x' }, 'latest'])],
    },
  ];
}

async function load(url, bodies, { requests, seconds }, work) {
  const spec = join(work, `load-${process.hrtime.bigint()}.json`);
  writeFileSync(spec, JSON.stringify({ url, bodies, concurrency: opt.concurrency, requests, seconds }));
  const r = await run(process.execPath, [join(import.meta.dirname, '..', 'load.mjs'), spec], {
    timeoutSeconds: seconds + 60,
  });
  rmSync(spec);
  return JSON.parse(r.output.trim().split('\n').pop());
}

async function measure(name, url, contract, work, pid) {
  const out = {};
  for (const w of workloads(contract)) {
    // The answers must be right before they are fast.
    const check = JSON.parse(
      await (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: w.bodies[0],
        })
      ).text(),
    );
    if (check.error) {
      // A peer without the method is left out of that row; Alder must answer every workload.
      if (name === 'Alder') throw new Error(`${name} ${w.name}: ${JSON.stringify(check.error)}`);
      log(`${name} ${w.name} skipped: ${JSON.stringify(check.error)}`);
      continue;
    }
    await load(url, w.bodies, { requests: 300, seconds: 1 }, work);
    const rs = [];
    for (let i = 0; i < opt.runs; i++) {
      const cpu0 = cpuSeconds(pid);
      const r = await load(url, w.bodies, { requests: opt.requests, seconds: opt.seconds }, work);
      r.cpuMs = ((cpuSeconds(pid) - cpu0) * 1000) / Math.max(1, r.count);
      rs.push(r);
    }
    const mid = [...rs].sort((a, b) => a.rps - b.rps)[Math.floor((rs.length - 1) / 2)];
    out[w.name] = {
      rps: median(rs.map((r) => r.rps)),
      p50: mid.p50,
      p99: mid.p99,
      cpuMs: median(rs.map((r) => r.cpuMs)),
      errors: rs.reduce((s, r) => s + r.errors, 0),
    };
    log(`${name} ${w.name}: ${fmt(out[w.name].rps)} req/s, ${fmt(out[w.name].cpuMs, 3)} ms CPU/req`);
  }
  return out;
}

async function deployOnPeer(url) {
  const [from] = await rpc(url, 'eth_accounts');
  const hash = await rpc(url, 'eth_sendTransaction', [{ from, data: INIT, gas: '0x30d40' }]);
  for (let i = 0; i < 100; i++) {
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt?.contractAddress) return receipt.contractAddress;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no receipt for the deployment on ${url}`);
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'alder-bench-exec-'));
  const results = {};
  try {
    log('execution: Alder');
    const genesisPath = join(work, 'genesis.json');
    writeFileSync(genesisPath, JSON.stringify(genesis()));
    const dataDir = join(work, 'alder');
    mkdirSync(dataDir);
    const port = await freePort();
    const alder = start(process.execPath, [
      BIN,
      `--genesis-file=${genesisPath}`,
      `--data-path=${dataDir}`,
      '--p2p-enabled=false',
      '--rpc-http-enabled',
      `--rpc-http-port=${port}`,
      '--logging=WARN',
    ]);
    const alderUrl = `http://127.0.0.1:${port}`;
    await waitForRpc(alderUrl, alder);
    results.Alder = await measure('Alder', alderUrl, CONTRACT, work, alder.pid);
    await stop(alder);

    for (const [name, startPeer] of [
      ['Hardhat', () => startHardhatPeer(work, { keys: [KEY], chainId: CHAIN_ID })],
      ['Ganache', () => startGanachePeer({ keys: [KEY], chainId: CHAIN_ID })],
      ['anvil', () => startAnvilPeer({ keys: [KEY], chainId: CHAIN_ID })],
    ]) {
      log(`execution: ${name}`);
      let peer;
      try {
        peer = await startPeer();
        const address = await deployOnPeer(peer.url);
        results[name] = await measure(name, peer.url, address, work, peer.proc.pid);
      } catch (err) {
        log(`${name} skipped: ${err.message}`);
      } finally {
        if (peer) await stop(peer.proc);
      }
    }
  } finally {
    killAll();
    rmSync(work, { recursive: true, force: true });
  }

  const peers = Object.keys(results).filter((n) => n !== 'Alder');
  const rows = [];
  for (const w of workloads(CONTRACT)) {
    const a = results.Alder?.[w.name];
    const row = [w.name, fmt(a?.rps), `${fmt(a?.p50, 1)} / ${fmt(a?.p99, 1)}`, fmt(a?.cpuMs, 3)];
    for (const p of peers) {
      const r = results[p][w.name];
      row.push(
        fmt(r?.rps),
        `${fmt(r?.p50, 1)} / ${fmt(r?.p99, 1)}`,
        fmt(r?.cpuMs, 3),
        r ? `${fmt(a.rps / r.rps, 2)}× / ${fmt(r.cpuMs / a.cpuMs, 2)}×` : '-',
      );
    }
    rows.push(row);
  }
  const headers = ['workload', 'Alder req/s', 'Alder p50/p99 ms', 'Alder CPU ms/req'];
  for (const p of peers) {
    headers.push(`${p} req/s`, `${p} p50/p99 ms`, `${p} CPU ms/req`, `vs ${p}: req/s ratio / CPU ratio`);
  }
  process.stdout.write(
    `## Execution API (eth_call, eth_estimateGas, eth_createAccessList)\n\n${table(headers, rows)}\n\n` +
      `Same contract on every node (view: one SLOAD; compute: a ${LOOP_TURNS}-turn loop, ~1M gas), ` +
      `${opt.concurrency} connections, median of ${opt.runs} runs of up to ${opt.requests} requests or ${opt.seconds} s. ` +
      "CPU ms/req is the server process's user + system time per answered request (10 ms clock ticks); " +
      "the ratios are Alder's throughput over the peer's and the peer's CPU per request over Alder's " +
      '(above 1 = Alder ahead).\n\n',
  );
}

main().catch((err) => {
  killAll();
  console.error(err);
  process.exit(1);
});
