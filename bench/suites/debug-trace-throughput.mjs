#!/usr/bin/env node
/**
 * Trace throughput: transactions traced per second with debug_traceTransaction, struct logs (stack
 * and storage on, memory off: the same options sent to both nodes) and callTracer, on the same
 * contract calls in Alder and in Hardhat's node. The calls: `--trace-txs` ERC-20 transfers of the
 * bench token (bench/genchain.mjs), mined `--trace-per-block` to a block on both nodes. Each node traces every transaction
 * one after another (one request in flight), `--trace-runs` times; the figure is the median run's
 * rate. A tracer a node does not serve is reported as such.
 *
 *   node bench/suites/debug-trace-throughput.mjs [--trace-txs=50] [--trace-per-block=10] [--trace-runs=3]
 *                                               [--trace-nodes=alder,hardhat]
 *
 * Alder runs the dev network with mining on; Hardhat's node runs with automine. Both bind 127.0.0.1 on
 * free ports and are stopped by PID. Prints a Markdown section on stdout, progress on stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bigIntToBytes, bytesToHex, concatBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { signDevTx } from '../devSigning.mjs';
import { keccak256, SELECTORS, tokenInitCode } from '../genchain.mjs';
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
  startHardhatPeer,
  stop,
  table,
  waitForRpc,
} from '../lib.mjs';

const require = createRequire(import.meta.url);
const secp = require('secp256k1');

const opt = parseOptions({
  'trace-txs': 50,
  'trace-per-block': 10,
  'trace-runs': 3,
  'trace-nodes': 'alder,hardhat',
});
const NODES = new Set(String(opt['trace-nodes']).split(','));
const CHAIN_ID = 1337n;
const FUNDER_HEX = '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3';
const FUNDER = hexToBytes(FUNDER_HEX);
const COINBASE = '0x00000000000000000000000000000000000c0ffe';
const STRUCT = { disableMemory: true, disableStack: false, disableStorage: false };

function sign(fields) {
  const tx = signDevTx(FUNDER, fields);
  return { raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) };
}

const word = (v) => setLengthLeft(typeof v === 'bigint' ? bigIntToBytes(v) : v, 32);
const transferData = (to, amount) =>
  bytesToHex(concatBytes(SELECTORS.transfer, word(hexToBytes(to)), word(amount)));
const recipient = (i) => bytesToHex(keccak256(new TextEncoder().encode(`trace-${i}`)).subarray(12));

async function receipt(url, hash, seconds = 120) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const r = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() > deadline) throw new Error(`transaction ${hash} not mined`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The token deployed and `--trace-txs` transfers mined; returns their hashes. */
async function prepare(url, mine) {
  const funder = `0x${Buffer.from(keccak256(secp.publicKeyCreate(FUNDER, false).subarray(1)).subarray(12)).toString('hex')}`;
  let nonce = BigInt(await rpc(url, 'eth_getTransactionCount', [funder, 'pending']));
  const deploy = sign({ nonce: nonce++, gasLimit: 1_000_000n, data: tokenInitCode() });
  await rpc(url, 'eth_sendRawTransaction', [deploy.raw]);
  if (mine) await rpc(url, ...mine);
  const token = (await receipt(url, deploy.hash)).contractAddress;
  // The transfers go in batches of --trace-per-block, each batch mined before the next is sent (Hardhat
  // with automine off and evm_mine per batch), so both nodes hold them in blocks of about that size
  // and a trace replays about the same earlier transactions on each.
  const hashes = [];
  const blocks = new Set();
  for (let i = 0; i < opt['trace-txs']; i += opt['trace-per-block']) {
    const batch = [];
    for (let j = i; j < Math.min(opt['trace-txs'], i + opt['trace-per-block']); j++) {
      const t = sign({ nonce: nonce++, gasLimit: 100_000n, to: token, data: transferData(recipient(j), 1n) });
      await rpc(url, 'eth_sendRawTransaction', [t.raw]);
      batch.push(t.hash);
    }
    if (mine) await rpc(url, ...mine);
    for (const h of batch) {
      const r = await receipt(url, h);
      if (r.status !== '0x1') throw new Error(`transfer ${h} failed`);
      blocks.add(r.blockNumber);
    }
    hashes.push(...batch);
  }
  return { hashes, blocks: blocks.size };
}

/** Median rate (tx/s) over the runs, or the error text when the node refuses the tracer. */
async function traceRate(url, hashes, options) {
  try {
    await rpc(url, 'debug_traceTransaction', [hashes[0], options]);
  } catch (err) {
    return { unsupported: err.message };
  }
  const rates = [];
  let logs = 0;
  for (let run = 0; run < opt['trace-runs']; run++) {
    const t0 = performance.now();
    for (const h of hashes) {
      const r = await rpc(url, 'debug_traceTransaction', [h, options]);
      if (run === 0) logs += r.structLogs?.length ?? 0;
    }
    rates.push(hashes.length / ((performance.now() - t0) / 1000));
  }
  return { rate: median(rates), logs };
}

async function measure(name, url, mine) {
  log(`${name}: token deployed, ${opt['trace-txs']} transfers`);
  const { hashes, blocks } = await prepare(url, mine);
  log(`${name}: ${hashes.length} transfers in ${blocks} blocks`);
  log(`${name}: struct logs`);
  const struct = await traceRate(url, hashes, STRUCT);
  log(`${name}: ${struct.rate ?? struct.unsupported} tx/s; callTracer`);
  const calls = await traceRate(url, hashes, { tracer: 'callTracer' });
  log(`${name}: ${calls.rate ?? calls.unsupported} tx/s`);
  return { struct, calls, blocks };
}

async function startAlder(work) {
  const port = await freePort();
  const proc = start(process.execPath, [
    BIN,
    '--network=dev',
    `--data-path=${join(work, 'alder')}`,
    '--p2p-enabled=false',
    '--miner-enabled',
    `--miner-coinbase=${COINBASE}`,
    '--rpc-http-enabled',
    '--rpc-http-host=127.0.0.1',
    `--rpc-http-port=${port}`,
    '--rpc-http-api=ETH,NET,WEB3,DEBUG',
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitForRpc(url, proc);
  return { proc, url };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'alder-trace-bench-'));
  const results = new Map();
  try {
    if (NODES.has('alder')) {
      const { proc, url } = await startAlder(work);
      try {
        results.set('Alder', await measure('alder', url));
      } finally {
        await stop(proc);
      }
    }
    if (NODES.has('hardhat')) {
      const { proc, url, automineOff } = await startHardhatPeer(work, {
        keys: [FUNDER_HEX],
        chainId: CHAIN_ID,
      });
      try {
        await rpc(url, ...automineOff);
        results.set("Hardhat's node", await measure('hardhat', url, ['evm_mine', []]));
      } finally {
        await stop(proc);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const cell = (r) => (r.unsupported ? `not served (${r.unsupported.slice(0, 40)})` : fmt(r.rate, 1));
  const rows = [...results].map(([node, r]) => [
    node,
    String(r.blocks),
    cell(r.struct),
    String(r.struct.logs ?? ''),
    cell(r.calls),
  ]);
  const alder = results.get('Alder');
  const hardhat = results.get("Hardhat's node");
  if (alder && hardhat && !alder.struct.unsupported && !hardhat.struct.unsupported) {
    const ratio = (a, b) => (a.unsupported || b.unsupported ? '—' : `${fmt(a.rate / b.rate, 2)}×`);
    rows.push([
      'Alder / Hardhat',
      '',
      ratio(alder.struct, hardhat.struct),
      '',
      ratio(alder.calls, hardhat.calls),
    ]);
  }
  process.stdout.write(
    `## Trace throughput (debug_traceTransaction, ${opt['trace-txs']} ERC-20 transfers, median of ${opt['trace-runs']} runs)\n\n`,
  );
  process.stdout.write(
    table(['node', 'blocks', 'struct logs tx/s', 'struct logs per run', 'callTracer tx/s'], rows),
  );
  process.stdout.write('\n');
}

main().catch((err) => {
  console.error(err);
  killAll();
  process.exit(1);
});
