#!/usr/bin/env node
/**
 * The engine API, as a consensus client sees it, printed as one Markdown section:
 *
 * - newPayload latency for full blocks: a builder node fills each block from its pool (plain transfers
 *   from many senders, up to the block gas limit); a second node, which has never seen the block,
 *   executes it through engine_newPayloadV4 — p50/p99 wall time and Mgas/s;
 * - forkchoiceUpdated with payload attributes → getPayload: the time from asking the builder for a
 *   block to holding it (the pool's transactions executed);
 * - `--network=pos-dev` transaction throughput next to Hardhat's node (automine): signed transfers sent
 *   with bounded concurrency, end to end until the last receipt.
 *
 *   node bench/suites/engine.mjs [--blocks=20] [--senders=100] [--tx-count=2000]
 *                                [--no-hardhat]
 *
 * Both engine nodes run a Prague chain (chain id 1337) on free 127.0.0.1 ports with a JWT secret;
 * every process started here is stopped by PID.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommonFromGethGenesis } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { bytesToHex, hexToBytes, privateToAddress } from '@ethereumjs/util';
import { SignJWT } from 'jose';
import { POS_DEV_GENESIS } from '../../dist/config/networks/posDev.js';
import { keccak256 } from '../genchain.mjs';
import {
  BIN,
  fmt,
  freePort,
  killAll,
  log,
  parseOptions,
  rpc,
  start,
  startHardhatPeer,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const opt = parseOptions({ blocks: 20, senders: 100, 'tx-count': 2000 });
const SECRET = `0x${'5e'.repeat(32)}`;
const GWEI = 10n ** 9n;
const DEV_KEYS = [
  '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
  '0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f',
];

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function jwt() {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(Math.floor(Date.now() / 1000))
    .sign(hexToBytes(SECRET));
}

let id = 0;
async function engine(url, method, params) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await jwt()}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  });
  const body = await r.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function startEngineNode(work, name, genesisFile, secretFile) {
  const dir = join(work, name);
  const http = await freePort();
  const port = await freePort();
  const prof = process.env.ALDER_ENGINE_BENCH_PROFILE_DIR;
  const proc = start(process.execPath, [
    ...(prof && name === 'follower' ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
    BIN,
    `--genesis-file=${genesisFile}`,
    `--data-path=${dir}`,
    '--p2p-enabled=false',
    '--rpc-http-enabled',
    `--rpc-http-port=${http}`,
    `--engine-rpc-port=${port}`,
    `--engine-jwt-secret=${secretFile}`,
    '--tx-pool-max-future-by-sender=2000',
    '--logging=WARN',
  ]);
  const url = `http://127.0.0.1:${http}`;
  await waitForRpc(url, proc);
  return { proc, url, engine: `http://127.0.0.1:${port}` };
}

async function sendAll(url, raws, concurrency) {
  let next = 0;
  const workers = Array.from({ length: concurrency }, async () => {
    while (next < raws.length) {
      const raw = raws[next++];
      await rpc(url, 'eth_sendRawTransaction', [raw]);
    }
  });
  await Promise.all(workers);
}

async function payloadFigures(work) {
  const keys = Array.from({ length: opt.senders }, (_, i) =>
    keccak256(new TextEncoder().encode(`engine-bench-${i}`)),
  );
  const alloc = { ...POS_DEV_GENESIS.alloc };
  for (const k of keys)
    alloc[bytesToHex(privateToAddress(k)).slice(2)] = { balance: '0x33b2e3c9fd0803ce8000000' };
  const { osakaTime: _o, ...config } = POS_DEV_GENESIS.config;
  const { osaka: _b, ...blobSchedule } = POS_DEV_GENESIS.config.blobSchedule;
  const genesis = { ...POS_DEV_GENESIS, config: { ...config, blobSchedule }, alloc };
  const genesisFile = join(work, 'genesis.json');
  const secretFile = join(work, 'jwt.hex');
  writeFileSync(genesisFile, JSON.stringify(genesis));
  writeFileSync(secretFile, SECRET);
  const common = createCommonFromGethGenesis(genesis, { chain: 'bench' });
  common.setHardfork('prague');
  const builder = await startEngineNode(work, 'builder', genesisFile, secretFile);
  const follower = await startEngineNode(work, 'follower', genesisFile, secretFile);
  const gasLimit = BigInt(genesis.gasLimit);
  const perBlock = Number(gasLimit / 21000n);
  const perSender = Math.ceil(perBlock / keys.length);
  const nonces = keys.map(() => 0n);
  let head = (await rpc(builder.url, 'eth_getBlockByNumber', ['0x0', false])).hash;
  let timestamp = 0;
  const newPayloadMs = [];
  const buildMs = [];
  let gas = 0n;
  let execMs = 0;
  for (let b = 0; b < opt.blocks; b++) {
    const raws = [];
    keys.forEach((k, i) => {
      for (let j = 0; j < perSender; j++) {
        const tx = createFeeMarket1559Tx(
          {
            chainId: 1337n,
            nonce: nonces[i]++,
            maxFeePerGas: 100n * GWEI,
            maxPriorityFeePerGas: GWEI,
            gasLimit: 21000n,
            to: `0x${'ab'.repeat(20)}`,
            value: 1n,
          },
          { common },
        ).sign(k);
        raws.push(bytesToHex(tx.serialize()));
      }
    });
    await sendAll(builder.url, raws, 16);
    timestamp += 12;
    const attrs = {
      timestamp: `0x${timestamp.toString(16)}`,
      prevRandao: `0x${'01'.repeat(32)}`,
      suggestedFeeRecipient: `0x${'fe'.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: `0x${'02'.repeat(32)}`,
    };
    const state = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: head };
    const t0 = performance.now();
    const fcu = await engine(builder.engine, 'engine_forkchoiceUpdatedV3', [state, attrs]);
    const got = await engine(builder.engine, 'engine_getPayloadV4', [fcu.payloadId]);
    buildMs.push(performance.now() - t0);
    const p = got.executionPayload;
    const params = [p, [], attrs.parentBeaconBlockRoot, got.executionRequests];
    const t1 = performance.now();
    const status = await engine(follower.engine, 'engine_newPayloadV4', params);
    const ms = performance.now() - t1;
    if (status.status !== 'VALID') throw new Error(`newPayload: ${JSON.stringify(status)}`);
    newPayloadMs.push(ms);
    gas += BigInt(p.gasUsed);
    execMs += ms;
    await engine(builder.engine, 'engine_newPayloadV4', params);
    head = p.blockHash;
    const next = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: head };
    await engine(builder.engine, 'engine_forkchoiceUpdatedV3', [next, null]);
    await engine(follower.engine, 'engine_forkchoiceUpdatedV3', [next, null]);
    log(`block ${b + 1}: ${p.transactions.length} txs, ${BigInt(p.gasUsed)} gas, newPayload ${fmt(ms)} ms`);
  }
  await stop(builder.proc);
  await stop(follower.proc);
  return {
    txsPerBlock: perBlock,
    newPayload: {
      p50: percentile(newPayloadMs, 50),
      p99: percentile(newPayloadMs, 99),
      mgas: Number(gas) / 1e6 / (execMs / 1000),
    },
    build: { p50: percentile(buildMs, 50), p99: percentile(buildMs, 99) },
  };
}

async function throughput(url, chainId) {
  const common = createCommonFromGethGenesis(POS_DEV_GENESIS, { chain: 'pos-dev' });
  common.setHardfork('london');
  const count = opt['tx-count'];
  const lanes = DEV_KEYS.map((k) => ({ key: hexToBytes(k), txs: [] }));
  for (const lane of lanes) {
    const from = bytesToHex(privateToAddress(lane.key));
    let nonce = BigInt(await rpc(url, 'eth_getTransactionCount', [from, 'latest']));
    for (let i = 0; i < Math.ceil(count / lanes.length); i++) {
      const tx = createFeeMarket1559Tx(
        {
          chainId,
          nonce: nonce++,
          maxFeePerGas: 100n * GWEI,
          maxPriorityFeePerGas: GWEI,
          gasLimit: 21000n,
          to: `0x${'cd'.repeat(20)}`,
          value: 1n,
        },
        { common },
      ).sign(lane.key);
      lane.txs.push(bytesToHex(tx.serialize()));
    }
  }
  const t0 = performance.now();
  // Each sender's nonces in order; the senders side by side.
  await Promise.all(
    lanes.map(async (lane) => {
      for (const raw of lane.txs) await rpc(url, 'eth_sendRawTransaction', [raw]);
    }),
  );
  const last = lanes.map((l) => l.txs[l.txs.length - 1]);
  const hashes = last.map((raw) => bytesToHex(keccak256(hexToBytes(raw))));
  for (;;) {
    const receipts = await Promise.all(hashes.map((h) => rpc(url, 'eth_getTransactionReceipt', [h])));
    if (receipts.every((r) => r !== null)) break;
    if (performance.now() - t0 > 300_000) throw new Error('transactions not mined within 300 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - t0) / 1000;
  return { count: lanes.reduce((n, l) => n + l.txs.length, 0), seconds };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'alder-engine-bench-'));
  try {
    const figures = await payloadFigures(work);
    const posPort = await freePort();
    const pos = start(process.execPath, [
      BIN,
      '--network=pos-dev',
      `--data-path=${join(work, 'posdev')}`,
      '--p2p-enabled=false',
      '--rpc-http-enabled',
      `--rpc-http-port=${posPort}`,
      `--engine-rpc-port=${await freePort()}`,
      '--logging=WARN',
    ]);
    const posUrl = `http://127.0.0.1:${posPort}`;
    await waitForRpc(posUrl, pos);
    const alder = await throughput(posUrl, 1337n);
    await stop(pos);
    let hardhat;
    if (!opt['no-hardhat']) {
      const peer = await startHardhatPeer(work, { keys: DEV_KEYS, chainId: 1337 });
      hardhat = await throughput(peer.url, 1337n);
      await stop(peer.proc);
    }
    const rows = [
      [
        'newPayloadV4, full block (p50 / p99)',
        `${fmt(figures.newPayload.p50)} / ${fmt(figures.newPayload.p99)} ms`,
        `${fmt(figures.newPayload.mgas, 1)} Mgas/s (${figures.txsPerBlock} transfers per block)`,
      ],
      [
        'forkchoiceUpdatedV3 + attributes → getPayloadV4 (p50 / p99)',
        `${fmt(figures.build.p50)} / ${fmt(figures.build.p99)} ms`,
        'block built from the pool',
      ],
      [
        '--network=pos-dev transfers, end to end',
        `${fmt(alder.count / alder.seconds)} tx/s`,
        `${alder.count} in ${fmt(alder.seconds, 1)} s`,
      ],
    ];
    if (hardhat)
      rows.push([
        "Hardhat's node (automine), same load",
        `${fmt(hardhat.count / hardhat.seconds)} tx/s`,
        `ratio Alder/Hardhat ${fmt(alder.count / alder.seconds / (hardhat.count / hardhat.seconds), 2)}`,
      ]);
    console.log(
      `## Engine API\n\n${opt.blocks} blocks, ${opt.senders} senders.\n\n${table(['workload', 'figure', 'note'], rows)}`,
    );
  } finally {
    killAll();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  killAll();
  console.error(err);
  process.exit(1);
});
